package io.rnic.datapath.endpoint;

import java.io.IOException;

/**
 * Holds the {@link InterfaceLock} of the interface named by its argument, says so on stdout, and waits for its stdin
 * to close: the other process of {@link InterfaceLockTest}, killed with SIGKILL while it holds the lock.
 */
public final class InterfaceLockHolderMain
{
    private InterfaceLockHolderMain()
    {
    }

    public static void main(final String[] args) throws IOException
    {
        try (InterfaceLock ignored = InterfaceLock.acquire(args[0]))
        {
            System.out.println("locked");
            System.out.flush();
            while (System.in.read() >= 0)
            {
                // wait to be killed
            }
        }
    }
}
