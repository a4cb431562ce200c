package io.rnic.tools;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The pieces of command-line parsing every command repeats: an option's value, a whole number in a range. Written
 * once so that every command names a missing value and a bad number in the same words, as a
 * {@link UsageException} that the launcher prints with the command's usage.
 */
public final class Arguments
{
    private Arguments()
    {
    }

    /** The value of {@code option}: {@code args[i]}, or a usage error when the command line ends before it. */
    public static String value(final String[] args, final int i, final String option)
    {
        if (i >= args.length)
        {
            throw new UsageException(option + " needs a value");
        }
        return args[i];
    }

    /**
     * The directory {@code option} names, {@code args[i]}: an empty value would mean the working directory to every
     * file call, so it is a usage error, as is a missing one.
     */
    public static Path directory(final String[] args, final int i, final String option)
    {
        return directory(option, value(args, i, option));
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
     * For commands whose every option takes a value: the value of {@code option}, {@code args[i]}. When the command
     * line ends before it, a usage error says the option needs a value or, when it is no option at all, that it is an
     * unknown argument.
     */
    public static String optionValue(final String[] args, final int i, final String option)
    {
        if (i >= args.length && !option.startsWith("--"))
        {
            throw new UsageException("unknown argument " + option);
        }
        return value(args, i, option);
    }

    /**
     * For commands that name every option they take in {@code usage}: the value of {@code option}, {@code args[i]}.
     * When the command line ends before it, an option the usage does not name is reported as unknown (it may be
     * meant to take no value at all), a named one as needing a value.
     */
    public static String value(final String[] args, final int i, final String option, final String usage)
    {
        if (i >= args.length && !isNamedIn(usage, option))
        {
            throw new UsageException("unknown option " + option);
        }
        return value(args, i, option);
    }

    /** {@link #optionValue(String[], int, String)} for commands that name every option they take in {@code usage}. */
    public static String optionValue(final String[] args, final int i, final String option, final String usage)
    {
        if (i >= args.length && option.startsWith("-") && !isNamedIn(usage, option))
        {
            throw new UsageException("unknown option " + option);
        }
        return optionValue(args, i, option);
    }

    /** Whether {@code text} names {@code option} as a word of its own (not as the start of a longer option). */
    public static boolean isNamedIn(final String text, final String option)
    {
        int from = 0;
        while (true)
        {
            final int at = text.indexOf(option, from);
            if (at < 0)
            {
                return false;
            }
            final int end = at + option.length();
            if ((at == 0 || !isOptionChar(text.charAt(at - 1))) && (end == text.length() || !isOptionChar(text.charAt(end))))
            {
                return true;
            }
            from = at + 1;
        }
    }

    private static boolean isOptionChar(final char c)
    {
        return Character.isLetterOrDigit(c) || c == '-' || c == '_';
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

    /** The whole number in {@code min..max} that is the value of {@code option} at {@code args[i]}. */
    public static long number(final String[] args, final int i, final String option, final long min, final long max)
    {
        return number(option, value(args, i, option), min, max);
    }
}
