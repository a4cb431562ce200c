package io.rnic.shm;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * The other process of {@link FdSocketTest}, as a client is to the driver: creates a sealed memfd of {@code LENGTH}
 * bytes, writes {@link #pattern} into every byte, sends it with the token {@code (HIGH, LOW)} to the socket at
 * {@code PATH}, prints {@code sent by <pid>} (or the refusal) and exits: the receiver's descriptor outlives it.
 */
public final class FdSenderMain
{
    private FdSenderMain()
    {
    }

    /** The byte written at {@code index}: differs from its neighbours and is never the zero a fresh memfd holds. */
    static byte pattern(final long index)
    {
        return (byte)(1 + index % 251);
    }

    public static void main(final String[] args)
    {
        final Path path = Path.of(args[0]);
        final long lengthBytes = Long.parseLong(args[1]);
        final long tokenHigh = Long.parseLong(args[2]);
        final long tokenLow = Long.parseLong(args[3]);
        try (SharedMemory memory = SharedMemory.create("rnic-test-sender", lengthBytes, false);
            FdSocket socket = FdSocket.connect(path))
        {
            final MemorySegment segment = memory.segment();
            for (long i = 0; i < lengthBytes; i++)
            {
                segment.set(JAVA_BYTE, i, pattern(i));
            }
            if (!socket.send(tokenHigh, tokenLow, memory.fd()))
            {
                System.out.println("the socket is full");
                return;
            }
            System.out.println("sent by " + ProcessHandle.current().pid());
        }
        catch (final ShmException ex)
        {
            System.out.println(ex.getMessage());
        }
    }
}
