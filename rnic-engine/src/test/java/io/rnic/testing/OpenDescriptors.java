package io.rnic.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** This process's open descriptors, as {@code /proc/self/fd} lists them: for tests that check none leaks. */
public final class OpenDescriptors
{
    private OpenDescriptors()
    {
    }

    /** How many of this process's descriptors point to the memfd called {@code name}. */
    public static long ofMemfd(final String name)
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
                    return false; // closed while listed
                }
            }).count();
        }
        catch (final IOException ex)
        {
            throw new AssertionError(ex);
        }
    }
}
