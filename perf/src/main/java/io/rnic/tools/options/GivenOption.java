package io.rnic.tools.options;

import java.nio.file.Path;

/**
 * One option as the command line gave it, its value read and checked against the table.
 *
 * @param option   the table's entry.
 * @param spelling the spelling given ({@code -s} or {@code --size}), which messages name.
 * @param text     the value as given, or null for a switch.
 * @param number   a {@link ValueKind#NUMBER}'s value, a {@link ValueKind#SIZE}'s in bytes, else 0.
 * @param decimal  a {@link ValueKind#DECIMAL}'s value, else 0.
 */
public record GivenOption(CliOption option, String spelling, String text, long number, double decimal)
{
    /** The number, for options whose range fits an int. */
    public int intValue()
    {
        return Math.toIntExact(number);
    }

    /** A {@link ValueKind#FILE}'s or a {@link ValueKind#DIRECTORY}'s path. */
    public Path path()
    {
        return Path.of(text);
    }

    /**
     * The error of an option the table gives a command and the command does not read: a table that says more than
     * the code does is a bug, which the tests look for (every option of every command is parsed in a test).
     */
    public IllegalStateException notHandled(final String command)
    {
        return new IllegalStateException(command + " does not read " + spelling + ", which the option table gives it");
    }
}
