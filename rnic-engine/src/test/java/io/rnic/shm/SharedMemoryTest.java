package io.rnic.shm;

import io.rnic.testing.OpenDescriptors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static io.rnic.shm.LinuxMemfd.EPERM;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Memory a client creates and a driver maps, both played by this JVM, the descriptor passed between them over a real
 * socket ({@link ReceivedFds}): the bytes are the same through both mappings, the owner cannot shrink a sealed memfd
 * under the mapper (the SIGBUS a driver must never take), and {@link SharedMemory#fromReceivedFd} refuses everything
 * else in one line, leaving no descriptor open. Another process sending is {@link FdSocketTest}'s.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SharedMemoryTest
{
    private static final long LENGTH_BYTES = 64 * 1024;

    @TempDir
    Path directory;
    private ReceivedFds received;

    @BeforeEach
    void connect()
    {
        received = new ReceivedFds(directory);
    }

    @AfterEach
    void disconnect()
    {
        received.close();
    }

    private SharedMemory receive(final SharedMemory created, final long expectedLengthBytes)
    {
        return SharedMemory.fromReceivedFd(received.pass(created.fd()), expectedLengthBytes);
    }

    @Test
    void shouldSeeTheSameBytesThroughTheCreatorAndTheOpener()
    {
        try (SharedMemory created = SharedMemory.create("rnic-test-same-bytes", LENGTH_BYTES, false);
            SharedMemory opened = receive(created, LENGTH_BYTES))
        {
            assertEquals(LENGTH_BYTES, opened.lengthBytes());
            assertEquals(LENGTH_BYTES, opened.segment().byteSize());
            assertEquals(-1, opened.fd(), "the received descriptor is closed once mapped");
            assertEquals(1, OpenDescriptors.ofMemfd("rnic-test-same-bytes"), "the creator's only");
            assertTrue(opened.segment().address() != created.segment().address(), "two mappings");

            created.segment().set(JAVA_LONG, 0, 0x0123_4567_89AB_CDEFL);
            created.segment().set(JAVA_BYTE, LENGTH_BYTES - 1, (byte)0x5A);
            assertEquals(0x0123_4567_89AB_CDEFL, opened.segment().get(JAVA_LONG, 0));
            assertEquals((byte)0x5A, opened.segment().get(JAVA_BYTE, LENGTH_BYTES - 1));

            opened.segment().set(JAVA_LONG, LENGTH_BYTES / 2, -2L);
            assertEquals(-2L, created.segment().get(JAVA_LONG, LENGTH_BYTES / 2));
        }
    }

    @Test
    void shouldNotLetTheOwnerShrinkOrGrowASealedMemfd()
    {
        try (SharedMemory created = SharedMemory.create("rnic-test-sealed", LENGTH_BYTES, false);
            SharedMemory opened = receive(created, LENGTH_BYTES))
        {
            assertEquals(EPERM, created.truncate(0), "the owner shrinks it to nothing");
            assertEquals(EPERM, created.truncate(LENGTH_BYTES - 1), "the owner takes the last byte");
            assertEquals(EPERM, created.truncate(2 * LENGTH_BYTES), "F_SEAL_GROW");

            // the access past a shrunk end that would raise SIGBUS
            opened.segment().set(JAVA_BYTE, LENGTH_BYTES - 1, (byte)7);
            assertEquals((byte)7, created.segment().get(JAVA_BYTE, LENGTH_BYTES - 1));
        }
    }

    @Test
    void shouldLetTheOwnerShrinkAnUnsealedMemfd()
    {
        try (SharedMemory unsealed = SharedMemory.createUnsealed("rnic-test-unsealed-shrink", LENGTH_BYTES))
        {
            assertEquals(0, unsealed.truncate(LENGTH_BYTES / 2), "what the seal prevents, without it");
        }
    }

    @Test
    void shouldKeepTheMemoryAfterTheCreatorClosesIt()
    {
        final SharedMemory created = SharedMemory.create("rnic-test-creator-gone", LENGTH_BYTES, false);
        created.segment().set(JAVA_LONG, 8, 42L);
        try (SharedMemory opened = receive(created, LENGTH_BYTES))
        {
            created.close();

            assertEquals(42L, opened.segment().get(JAVA_LONG, 8));
            opened.segment().set(JAVA_LONG, LENGTH_BYTES - 8, 43L);
            assertEquals(43L, opened.segment().get(JAVA_LONG, LENGTH_BYTES - 8));
        }
    }

    @Test
    void shouldRefuseAMemfdThatIsNotSealed()
    {
        final String name = "rnic-test-unsealed";
        try (SharedMemory unsealed = SharedMemory.createUnsealed(name, LENGTH_BYTES))
        {
            final int fd = received.pass(unsealed.fd());
            final ShmException ex = assertThrows(ShmException.class,
                () -> SharedMemory.fromReceivedFd(fd, LENGTH_BYTES));

            assertEquals("received fd " + fd + " (/memfd:" + name + " (deleted)) is not " +
                "sealed against shrinking (F_SEAL_SHRINK), so its owner could truncate it under the mapping: " +
                "allocate it with SharedMemory.create, which seals it", ex.getMessage());
            assertEquals(1, OpenDescriptors.ofMemfd(name), "the refused duplicate is closed");
        }
    }

    @Test
    void shouldRefuseASizeOtherThanTheExpectedOne()
    {
        final String name = "rnic-test-size";
        try (SharedMemory created = SharedMemory.create(name, LENGTH_BYTES, false))
        {
            final int fd = received.pass(created.fd());
            final ShmException larger = assertThrows(ShmException.class,
                () -> SharedMemory.fromReceivedFd(fd, LENGTH_BYTES + 4096));
            final ShmException smaller = assertThrows(ShmException.class,
                () -> receive(created, LENGTH_BYTES - 1));

            assertEquals("received fd " + fd + " (/memfd:" + name + " (deleted)) is " +
                LENGTH_BYTES + " bytes, not the " + (LENGTH_BYTES + 4096) + " expected: pass the length the " +
                "memory was created with", larger.getMessage());
            assertTrue(smaller.getMessage().endsWith(" is " + LENGTH_BYTES + " bytes, not the " + (LENGTH_BYTES - 1) +
                " expected: pass the length the memory was created with"), smaller.getMessage());
            assertEquals(1, OpenDescriptors.ofMemfd(name), "the refused duplicates are closed");
        }
    }

    @Test
    void shouldRefuseAFileThatIsNotAMemfd(@TempDir final Path directory) throws IOException
    {
        final Path file = directory.resolve("not-a-memfd");
        Files.write(file, new byte[(int)LENGTH_BYTES]);
        final int ours;
        try (Arena arena = Arena.ofConfined())
        {
            ours = LinuxMemfd.open(LinuxMemfd.callState(arena), arena.allocateFrom(file.toString()), LinuxMemfd.O_RDWR);
        }
        assertTrue(ours >= 0, "open " + file);
        try
        {
            final int fd = received.pass(ours);
            final ShmException ex = assertThrows(ShmException.class,
                () -> SharedMemory.fromReceivedFd(fd, LENGTH_BYTES));

            assertEquals("received fd " + fd + " (" + file.toRealPath() + ") is not a memfd: " +
                "allocate the memory with SharedMemory.create and pass its fd()", ex.getMessage());
            assertTrue(Files.notExists(Path.of("/proc/self/fd", Integer.toString(fd))), "the refused fd is closed");
        }
        finally
        {
            LinuxMemfd.close(ours);
        }
    }

    @Test
    void shouldCloseTwice()
    {
        final String name = "rnic-test-close-twice";
        final String nextName = "rnic-test-close-twice-next";
        final SharedMemory created = SharedMemory.create(name, LENGTH_BYTES, false);
        final SharedMemory opened = receive(created, LENGTH_BYTES);
        assertEquals(1, OpenDescriptors.ofMemfd(name), "the received one is closed once mapped");

        opened.close();
        created.close();
        // takes the lowest free descriptor: the one created had, which its second close must leave alone
        try (SharedMemory next = SharedMemory.create(nextName, LENGTH_BYTES, false))
        {
            opened.close();
            created.close();

            assertEquals(0, OpenDescriptors.ofMemfd(name), "the descriptor is closed");
            assertEquals(1, OpenDescriptors.ofMemfd(nextName), "a second close() closes nothing: " + next.fd());
        }
    }

    @Test
    void shouldUseHugePagesOnlyWhenThereAreSome()
    {
        final long lengthBytes = SharedMemory.pageSize(true);
        if (SharedMemory.hugePagesAvailable())
        {
            try (SharedMemory created = SharedMemory.create("rnic-test-huge", lengthBytes, true);
                SharedMemory opened = receive(created, lengthBytes))
            {
                created.segment().set(JAVA_LONG, lengthBytes - 8, 9L);
                assertEquals(9L, opened.segment().get(JAVA_LONG, lengthBytes - 8));
            }
        }
        else
        {
            final ShmException ex = assertThrows(ShmException.class,
                () -> SharedMemory.create("rnic-test-huge", lengthBytes, true));

            assertEquals("cannot map memfd rnic-test-huge (" + lengthBytes + " bytes on huge pages): Cannot " +
                "allocate memory (errno 12); HugePages_Free is 0 in /proc/meminfo: reserve huge pages " +
                "(sysctl vm.nr_hugepages) or use hugePages=false", ex.getMessage());
        }
        assertEquals(4096, SharedMemory.pageSize(false));
        final ShmException unaligned = assertThrows(ShmException.class,
            () -> SharedMemory.create("rnic-test-huge-unaligned", lengthBytes + 4096, true));
        assertTrue(unaligned.getMessage().endsWith(": not a multiple of the huge page size " + lengthBytes +
            "; round it up to SharedMemory.pageSize(true)"), unaligned.getMessage());
    }
}
