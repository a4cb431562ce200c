package io.rnic.shm;

import io.rnic.testing.ForkedJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.rnic.shm.LinuxMemfd.EPERM;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Memory a client creates and a driver maps, both played by this JVM (and once by a forked one): the bytes are the
 * same through both mappings, the owner cannot shrink a sealed memfd under the mapper (the SIGBUS a driver must never
 * take), and {@link SharedMemory#openFromProcess} refuses everything else in one line, leaving no descriptor open.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SharedMemoryTest
{
    private static final long LENGTH_BYTES = 64 * 1024;
    private static final long PID = ProcessHandle.current().pid();

    @Test
    void shouldSeeTheSameBytesThroughTheCreatorAndTheOpener()
    {
        try (SharedMemory created = SharedMemory.create("rnic-test-same-bytes", LENGTH_BYTES, false);
            SharedMemory opened = SharedMemory.openFromProcess(PID, created.fd(), LENGTH_BYTES))
        {
            assertEquals(LENGTH_BYTES, opened.lengthBytes());
            assertEquals(LENGTH_BYTES, opened.segment().byteSize());
            assertTrue(opened.fd() != created.fd(), "the opener holds a descriptor of its own");
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
            SharedMemory opened = SharedMemory.openFromProcess(PID, created.fd(), LENGTH_BYTES))
        {
            assertEquals(EPERM, created.truncate(0), "the owner shrinks it to nothing");
            assertEquals(EPERM, created.truncate(LENGTH_BYTES - 1), "the owner takes the last byte");
            assertEquals(EPERM, opened.truncate(0), "through the opener's descriptor");
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
        try (SharedMemory opened = SharedMemory.openFromProcess(PID, created.fd(), LENGTH_BYTES))
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
            final ShmException ex = assertThrows(ShmException.class,
                () -> SharedMemory.openFromProcess(PID, unsealed.fd(), LENGTH_BYTES));

            assertEquals("fd " + unsealed.fd() + " of process " + PID + " (/memfd:" + name + " (deleted)) is not " +
                "sealed against shrinking (F_SEAL_SHRINK), so its owner could truncate it under the mapping: " +
                "allocate it with SharedMemory.create, which seals it", ex.getMessage());
            assertEquals(1, descriptorsOf(name), "the refused duplicate is closed");
        }
    }

    @Test
    void shouldRefuseASizeOtherThanTheExpectedOne()
    {
        final String name = "rnic-test-size";
        try (SharedMemory created = SharedMemory.create(name, LENGTH_BYTES, false))
        {
            final ShmException larger = assertThrows(ShmException.class,
                () -> SharedMemory.openFromProcess(PID, created.fd(), LENGTH_BYTES + 4096));
            final ShmException smaller = assertThrows(ShmException.class,
                () -> SharedMemory.openFromProcess(PID, created.fd(), LENGTH_BYTES - 1));

            assertEquals("fd " + created.fd() + " of process " + PID + " (/memfd:" + name + " (deleted)) is " +
                LENGTH_BYTES + " bytes, not the " + (LENGTH_BYTES + 4096) + " expected: pass the length the " +
                "memory was created with", larger.getMessage());
            assertTrue(smaller.getMessage().endsWith(" is " + LENGTH_BYTES + " bytes, not the " + (LENGTH_BYTES - 1) +
                " expected: pass the length the memory was created with"), smaller.getMessage());
            assertEquals(1, descriptorsOf(name), "the refused duplicates are closed");
        }
    }

    @Test
    void shouldRefuseAFileThatIsNotAMemfd(@TempDir final Path directory) throws IOException
    {
        final Path file = directory.resolve("not-a-memfd");
        Files.write(file, new byte[(int)LENGTH_BYTES]);
        final int fd;
        try (Arena arena = Arena.ofConfined())
        {
            fd = LinuxMemfd.open(LinuxMemfd.callState(arena), arena.allocateFrom(file.toString()), LinuxMemfd.O_RDWR);
        }
        assertTrue(fd >= 0, "open " + file);
        try
        {
            final ShmException ex = assertThrows(ShmException.class,
                () -> SharedMemory.openFromProcess(PID, fd, LENGTH_BYTES));

            assertEquals("fd " + fd + " of process " + PID + " (" + file.toRealPath() + ") is not a memfd: " +
                "allocate the memory with SharedMemory.create and pass its fd()", ex.getMessage());
        }
        finally
        {
            LinuxMemfd.close(fd);
        }
    }

    @Test
    void shouldRefuseADescriptorThatIsNotOpen()
    {
        final int fd = 999_999;
        final String message = "cannot take fd " + fd + " of process " + PID + ": no such descriptor; pass the " +
            "fd() of a SharedMemory the client keeps open";

        assertEquals(message, assertThrows(ShmException.class,
            () -> SharedMemory.openFromProcess(PID, fd, LENGTH_BYTES)).getMessage());
        assertEquals(message, assertThrows(ShmException.class,
            () -> SharedMemory.openFromProcess(PID, fd, LENGTH_BYTES, true)).getMessage(), "through pidfd_getfd");
    }

    @Test
    void shouldRefuseAProcessThatHasExited() throws IOException, InterruptedException
    {
        final Process exited = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(), "-version")
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertEquals(0, exited.waitFor());
        final long pid = exited.pid();
        final String message = "cannot take fd 3 of process " + pid + ": no such process; the client must stay " +
            "alive until the memory is mapped";

        assertEquals(message, assertThrows(ShmException.class,
            () -> SharedMemory.openFromProcess(pid, 3, LENGTH_BYTES)).getMessage());
        assertEquals(message, assertThrows(ShmException.class,
            () -> SharedMemory.openFromProcess(pid, 3, LENGTH_BYTES, true)).getMessage(), "through pidfd_open");
    }

    @Test
    void shouldTakeTheDescriptorThroughPidfdGetfd()
    {
        try (SharedMemory created = SharedMemory.create("rnic-test-pidfd", LENGTH_BYTES, false);
            SharedMemory opened = SharedMemory.openFromProcess(PID, created.fd(), LENGTH_BYTES, true))
        {
            opened.segment().set(JAVA_LONG, 16, 0x1122_3344L);
            assertEquals(0x1122_3344L, created.segment().get(JAVA_LONG, 16));
        }
    }

    @Test
    void shouldLetAnotherProcessWriteIntoTheMemory() throws IOException, InterruptedException
    {
        try (SharedMemory created = SharedMemory.create("rnic-test-other-process", LENGTH_BYTES, false))
        {
            final ForkedJvm.Result result = ForkedJvm.run(SharedMemoryWriterMain.class, Set.of(),
                Long.toString(PID), Integer.toString(created.fd()), Long.toString(LENGTH_BYTES));

            assertEquals(0, result.exit(), result.toString());
            assertEquals("wrote " + LENGTH_BYTES + " bytes\n", result.stdout(), result.toString());
            final MemorySegment segment = created.segment();
            for (long i = 0; i < LENGTH_BYTES; i++)
            {
                assertEquals(SharedMemoryWriterMain.pattern(i), segment.get(JAVA_BYTE, i), "byte " + i);
            }
        }
    }

    @Test
    void shouldCloseTwice()
    {
        final String name = "rnic-test-close-twice";
        final String nextName = "rnic-test-close-twice-next";
        final SharedMemory created = SharedMemory.create(name, LENGTH_BYTES, false);
        final SharedMemory opened = SharedMemory.openFromProcess(PID, created.fd(), LENGTH_BYTES);
        assertEquals(2, descriptorsOf(name));

        opened.close();
        // takes the lowest free descriptor: the one opened had, which its second close must leave alone
        try (SharedMemory next = SharedMemory.create(nextName, LENGTH_BYTES, false))
        {
            opened.close();
            created.close();
            created.close();

            assertEquals(0, descriptorsOf(name), "both descriptors are closed");
            assertEquals(1, descriptorsOf(nextName), "a second close() closes nothing: " + next.fd());
        }
    }

    @Test
    void shouldUseHugePagesOnlyWhenThereAreSome()
    {
        final long lengthBytes = SharedMemory.pageSize(true);
        if (SharedMemory.hugePagesAvailable())
        {
            try (SharedMemory created = SharedMemory.create("rnic-test-huge", lengthBytes, true);
                SharedMemory opened = SharedMemory.openFromProcess(PID, created.fd(), lengthBytes))
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

    /** How many of this process's descriptors point to the memfd called {@code name}. */
    private static long descriptorsOf(final String name)
    {
        final String target = "/memfd:" + name + " (deleted)";
        try (Stream<Path> descriptors = Files.list(Path.of("/proc/self/fd")))
        {
            return descriptors.filter(descriptor ->
            {
                try
                {
                    return Files.readSymbolicLink(descriptor).toString().equals(target);
                }
                catch (final IOException ex)
                {
                    return false;
                }
            }).count();
        }
        catch (final IOException ex)
        {
            throw new AssertionError(ex);
        }
    }
}
