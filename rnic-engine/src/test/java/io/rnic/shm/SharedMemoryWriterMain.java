package io.rnic.shm;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * The other process of {@link SharedMemoryTest}, as a driver is to a client: takes the memory the test's JVM created
 * by its pid and descriptor ({@code PID FD LENGTH}), writes {@link #pattern} into every byte, prints what it wrote
 * (or the refusal) and exits.
 */
public final class SharedMemoryWriterMain
{
    private SharedMemoryWriterMain()
    {
    }

    /** The byte written at {@code index}: differs from its neighbours and is never the zero a fresh memfd holds. */
    static byte pattern(final long index)
    {
        return (byte)(1 + index % 251);
    }

    public static void main(final String[] args)
    {
        final long pid = Long.parseLong(args[0]);
        final int fd = Integer.parseInt(args[1]);
        final long lengthBytes = Long.parseLong(args[2]);
        try (SharedMemory memory = SharedMemory.openFromProcess(pid, fd, lengthBytes))
        {
            final MemorySegment segment = memory.segment();
            for (long i = 0; i < lengthBytes; i++)
            {
                segment.set(JAVA_BYTE, i, pattern(i));
            }
            System.out.println("wrote " + lengthBytes + " bytes");
        }
        catch (final ShmException ex)
        {
            System.out.println(ex.getMessage());
        }
    }
}
