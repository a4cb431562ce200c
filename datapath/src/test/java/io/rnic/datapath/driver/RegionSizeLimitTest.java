package io.rnic.datapath.driver;

import io.rnic.client.DriverContext;
import io.rnic.device.RnicContext;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.Errno;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.MemoryRegionTable;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.VerbsException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The largest region ({@code max_mr_size}, 2 GiB - 1) is the same limit, refused the same way, embedded and through a
 * driver: a 3 GiB region once reached the driver and was refused there as not lying in its own 3 GiB file. The memory
 * is sparse (a memfd, a file in /dev/shm) and never touched.
 */
class RegionSizeLimitTest
{
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
