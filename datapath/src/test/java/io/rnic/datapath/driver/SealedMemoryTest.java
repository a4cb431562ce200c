package io.rnic.datapath.driver;

import io.rnic.client.DriverContext;
import io.rnic.device.RnicContext;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.Errno;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.MemoryRegionTable;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.VerbsException;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The memory a client registers is a memfd the driver maps: the client cannot shrink (or grow) it under the driver's
 * mapping, whatever it tries, so a peer writing into it through the driver never meets a SIGBUS; and once the client
 * deregisters it, the driver's engine no longer touches it: a peer's WRITE to the old rkey is refused. A region
 * longer than the limit is refused before its memory goes to the driver, as embedded.
 */
class SealedMemoryTest
{
    /** A size no other memory of the test has, to find the memfd behind it among this process's descriptors. */
    private static final long CLIENT_MEMORY_BYTES = 3L << 20;
    private static final int WRITE_BYTES = 65_536;
    private static final long THREE_GIB = 3L << 30;
    private static final String REFUSAL = "EINVAL: memory region of 3221225472 bytes: a region holds at most " +
        "2147483647 bytes (2 GiB - 1, max_mr_size)";

    private DriverFixture fixture;

    @BeforeEach
    void start() throws Exception
    {
        fixture = DriverFixture.withTimeoutMs(2_000);
    }

    @AfterEach
    void stop() throws Exception
    {
        fixture.close();
    }

    @Test
    void shouldRefuseToTruncateRegisteredMemoryAndRefuseWritesOnceDeregistered()
    {
        try (DriverContext client = DriverContext.open(fixture.directory))
        {
            final RcEnd end = new RcEnd(client, CLIENT_MEMORY_BYTES);
            final RcEnd peer = new RcEnd(fixture.peer, WRITE_BYTES);
            end.connect(peer.qp.qpn(), DriverFixture.IP_PEER, 14, 7);
            peer.connect(end.qp.qpn(), DriverFixture.IP_DRIVER, 14, 7);
            final int[] fds = TestLibc.memfds("rnic-memory", CLIENT_MEMORY_BYTES);
            // the client's descriptor only: the driver (in this JVM) closed the one it received once mapped
            assertEquals(1, fds.length, "descriptors of the client's memory");
            for (int i = 0; i < WRITE_BYTES; i++)
            {
                peer.memory.set(ValueLayout.JAVA_BYTE, i, (byte)(i * 31 + 7));
            }

            final int writes = (int)(CLIENT_MEMORY_BYTES / WRITE_BYTES);
            for (int i = 0; i < writes; i++)
            {
                if (i == writes / 2)
                {
                    assertEquals(TestLibc.EPERM, TestLibc.ftruncate(fds[0], 0), "ftruncate to 0");
                    assertEquals(TestLibc.EPERM, TestLibc.ftruncate(fds[0], 4096), "ftruncate to a page");
                    assertEquals(TestLibc.EPERM, TestLibc.ftruncate(fds[0], CLIENT_MEMORY_BYTES * 2), "ftruncate up");
                }
                assertEquals(0, peer.postWrite(i, end.mr.address() + (long)i * WRITE_BYTES, end.mr.rKey(),
                    WRITE_BYTES));
                final WorkCompletion done = peer.poll(peer.sendCq, TimeUnit.SECONDS.toNanos(10));
                assertNotNull(done, "WRITE " + i + " did not complete");
                assertEquals(WcStatus.SUCCESS, done.status(), "WRITE " + i);
            }
            final byte[] written = peer.memory.toArray(ValueLayout.JAVA_BYTE);
            for (int i = 0; i < writes; i++)
            {
                assertArrayEquals(written, end.memory.asSlice((long)i * WRITE_BYTES, WRITE_BYTES)
                    .toArray(ValueLayout.JAVA_BYTE), "block " + i + " of the client's memory");
            }

            client.deregisterMemoryRegion(end.mr);
            peer.memory.fill((byte)0x5A);
            assertEquals(0, peer.postWrite(writes, end.mr.address(), end.mr.rKey(), WRITE_BYTES));
            final WorkCompletion refused = peer.poll(peer.sendCq, TimeUnit.SECONDS.toNanos(10));
            assertNotNull(refused, "the WRITE to a deregistered region neither completed nor failed");
            assertEquals(WcStatus.REM_ACCESS_ERR, refused.status());
            assertArrayEquals(written, end.memory.asSlice(0, WRITE_BYTES).toArray(ValueLayout.JAVA_BYTE),
                "the driver wrote into memory deregistered");
        }
    }

    /**
     * The largest region ({@code max_mr_size}, 2 GiB - 1) is the same limit, refused the same way, embedded and
     * through a driver: a 3 GiB region once reached the driver and was refused there as not lying in its own 3 GiB
     * file. The memory is sparse (a memfd, a file in /dev/shm) and never touched.
     */
    @Test
    void shouldRefuseARegionBeyondTheLimitThroughADriverAsEmbeddedAndTakeOneAtTheLimit() throws Exception
    {
        final Path file = Files.createTempFile(Path.of("/dev/shm"), "rnic-region-limit", ".mem");
        try (DriverContext client = DriverContext.open(fixture.directory);
            Arena arena = Arena.ofShared();
            FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final MemorySegment embeddedMemory = channel.map(FileChannel.MapMode.READ_WRITE, 0, THREE_GIB, arena);
            final VerbsException embedded = refused(fixture.peer, embeddedMemory);

            final MemorySegment driverMemory = client.allocate(THREE_GIB);
            final VerbsException throughDriver = refused(client, driverMemory);
            assertEquals(REFUSAL, throughDriver.getMessage());
            assertEquals(REFUSAL, embedded.getMessage());
            assertEquals(Errno.EINVAL, throughDriver.errno());

            final ProtectionDomain pd = client.allocPd();
            final MemoryRegion largest = client.registerMemoryRegion(pd,
                driverMemory.asSlice(0, MemoryRegionTable.MAX_REGION_BYTES), AccessFlags.ALL);
            assertEquals(MemoryRegionTable.MAX_REGION_BYTES, largest.length());
            client.deregisterMemoryRegion(largest);
        }
        finally
        {
            Files.deleteIfExists(file);
        }
    }

    private static VerbsException refused(final RnicContext context, final MemorySegment memory)
    {
        final ProtectionDomain pd = context.allocPd();
        return assertThrows(VerbsException.class,
            () -> context.registerMemoryRegion(pd, memory, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE));
    }
}
