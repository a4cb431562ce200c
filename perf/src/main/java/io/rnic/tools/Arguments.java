package io.rnic.tools;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How a value is read and checked: a whole number in a range, a size with its suffixes, a directory, a file to write.
 * {@link io.rnic.tools.options.CommandLine} reads every option's value with these, so that every command names a
 * bad number in the same words, as a {@link UsageException} that the launcher prints with the command's usage.
 */
public final class Arguments
{
    private Arguments()
    {
    }

    /** {@code value} as the directory {@code option} names; a usage error when it is empty or blank. */
    public static Path directory(final String option, final String value)
    {
        if (value.isBlank())
        {
            throw new UsageException(option + " needs a directory, not '" + value + "'");
        }
        return Path.of(value);
    }

    /**
     * A file a command will write, checked before it does any work: its directory must exist and be writable, and
     * the file must not be a directory. Null (the option not given) passes.
     */
    public static void checkWritable(final String option, final Path file)
    {
        if (file == null)
        {
            return;
        }
        final Path parent = file.toAbsolutePath().getParent();
        if (Files.isDirectory(file))
        {
            throw new UsageException(option + " " + file + ": is a directory, not a file");
        }
        if (parent != null && !Files.isDirectory(parent))
        {
            throw new UsageException(option + " " + file + ": no such directory " + parent);
        }
        if (parent != null && !Files.isWritable(parent) && !Files.isWritable(file))
        {
            throw new UsageException(option + " " + file + ": cannot write in " + parent + " (permission denied)");
        }
    }

    /** A whole number in {@code min..max}, or a usage error naming the option. */
    public static long number(final String option, final String value, final long min, final long max)
    {
        final long n;
        try
        {
            n = Long.parseLong(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException(option + " takes a whole number, not '" + value + "'");
        }
        if (n < min || n > max)
        {
            throw new UsageException(option + " " + value + " out of range " + min + ".." + max);
        }
        return n;
    }

    /** What every size-taking option says it takes, in its help and its errors. */
    public static final String SIZE_FORMS =
        "N bytes, or NK, NM, NG, NT: N x 2^10, 2^20, 2^30, 2^40 (k, m, g, t too)";

    /**
     * A size in bytes, as every size-taking option reads it: a whole number, optionally followed by perftest's
     * {@code K} or {@code M}, or {@code G} (2^10, 2^20, 2^30; lower case too), checked against {@code min..max} in
     * bytes, whichever form it was given in.
     */
    public static long bytes(final String option, final String value, final long min, final long max)
    {
        final int last = value.length() - 1;
        final int shift = last <= 0 ? 0 : switch (value.charAt(last))
        {
            case 'K', 'k' -> 10;
            case 'M', 'm' -> 20;
            case 'G', 'g' -> 30;
            case 'T', 't' -> 40;
            default -> 0;
        };
        final long n;
        try
        {
            n = Long.parseLong(shift == 0 ? value : value.substring(0, last));
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException(option + " takes a size (" + SIZE_FORMS + "), not '" + value + "'");
        }
        // beyond what a long holds in bytes: out of any range a size option has
        final long bytes = n > Long.MAX_VALUE >> shift ? Long.MAX_VALUE : n << shift;
        if (bytes < min || bytes > max)
        {
            throw new UsageException(option + " " + value + (shift == 0 || bytes == Long.MAX_VALUE ? "" :
                " (" + bytes + " bytes)") + " out of range " + min + ".." + max + " bytes");
        }
        return bytes;
    }
}
