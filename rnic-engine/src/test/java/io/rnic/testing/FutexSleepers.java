package io.rnic.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Whether a thread of this process, by its name ({@code /proc/self/task/TID/comm}, the first 15 characters), sleeps in
 * the kernel on a shared-memory futex ({@code io.rnic.shm.Futex}: {@code FUTEX_WAIT} without the private flag, which
 * the JVM's own locks and parks always set): what a test waits for before it publishes, so that the publication must
 * wake the sleeper rather than find it not asleep yet. Linux x86_64.
 */
public final class FutexSleepers
{
    /** {@code /proc/.../syscall}'s first fields for {@code futex(addr, FUTEX_WAIT, ...)}: number 202, op 0. */
    private static final String FUTEX = "202";
    private static final String FUTEX_WAIT_SHARED = "0x0";

    private FutexSleepers()
    {
    }

    /** True when a thread named {@code name} (at most 15 characters) is asleep on a shared futex right now. */
    public static boolean isAsleep(final String name)
    {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task")))
        {
            return tasks.anyMatch(task -> name.equals(read(task.resolve("comm"))) && asleepOnSharedFutex(task));
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private static boolean asleepOnSharedFutex(final Path task)
    {
        final String stat = read(task.resolve("stat"));
        final String syscall = read(task.resolve("syscall"));
        if (stat == null || syscall == null)
        {
            return false;
        }
        final String[] fields = syscall.split(" ");
        // the state follows the command name in parentheses, which may hold spaces
        return stat.substring(stat.lastIndexOf(')') + 2).startsWith("S") && fields.length > 2 &&
            fields[0].equals(FUTEX) && fields[2].equals(FUTEX_WAIT_SHARED);
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.readString(file).trim();
        }
        catch (final IOException ex)
        {
            return null; // the thread ended meanwhile
        }
    }
}
