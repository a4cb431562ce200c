package io.rnic.tools.options;

import io.rnic.tools.Arguments;
import io.rnic.tools.UsageException;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The one parser of every command's arguments, reading them against {@link CliOption}'s table: options in any
 * order, a value as the next argument or, for a long option, after {@code =} ({@code --size=64K}), and the rest as
 * operands. Every refusal is a {@link UsageException} in one of a few forms, each naming the option and the fix:
 * <ul>
 * <li>{@code unknown option --bogus: 'rnic help write-bw' lists its options}</li>
 * <li>{@code -U does not apply to write-bw: it applies to write-lat, read-lat, send-lat, atomic-lat}</li>
 * <li>{@code -s needs a value: -s SIZE}</li>
 * <li>{@code -p 0 out of range 1..65535} (and {@code ... bytes} for a size)</li>
 * <li>{@code -p takes a whole number, not 'x'}, {@code --cc takes dcqcn|none, not 'x'}</li>
 * <li>{@code unexpected argument 'x': cc-sim takes options only}</li>
 * </ul>
 */
public final class CommandLine
{
    private final String command;
    private final List<GivenOption> options = new ArrayList<>();
    private final List<String> operands = new ArrayList<>();

    private CommandLine(final String command)
    {
        this.command = command;
    }

    /** {@code args} of {@code command} read against the table; a {@link UsageException} for what it refuses. */
    public static CommandLine parse(final String command, final String... args)
    {
        final CommandLine line = new CommandLine(command);
        for (int i = 0; i < args.length; i++)
        {
            String spelling = args[i];
            if (!spelling.startsWith("-") || spelling.equals("-"))
            {
                line.operands.add(spelling);
                continue;
            }
            String text = null;
            final int equals = spelling.indexOf('=');
            if (spelling.startsWith("--") && equals > 0)
            {
                text = spelling.substring(equals + 1);
                spelling = spelling.substring(0, equals);
            }
            final CliOption option = find(command, spelling);
            if (option.refusal() != null)
            {
                throw new UsageException(spelling + " (" + option.help() + "): " + option.refusal());
            }
            if (!option.takesValue())
            {
                if (text != null)
                {
                    throw new UsageException(spelling + " takes no value: " + spelling + ", not " + args[i]);
                }
                line.options.add(new GivenOption(option, spelling, null, 0, 0));
                continue;
            }
            if (text == null)
            {
                if (++i >= args.length)
                {
                    throw new UsageException(spelling + " needs a value: " + spelling + " " + option.valueName());
                }
                text = args[i];
            }
            line.options.add(read(option, spelling, text));
        }
        return line;
    }

    /** The option {@code spelling} names for {@code command}, or the refusal that says why there is none. */
    static CliOption find(final String command, final String spelling)
    {
        final Set<String> elsewhere = new LinkedHashSet<>();
        for (final CliOption option : CliOption.values())
        {
            if (option.spellings().contains(spelling))
            {
                if (option.appliesTo(command))
                {
                    return option;
                }
                elsewhere.addAll(option.scope().commandList());
            }
        }
        if (elsewhere.isEmpty())
        {
            throw new UsageException(unknownOption(command, spelling));
        }
        throw new UsageException(spelling + " does not apply to " + command + ": it applies to " +
            String.join(", ", elsewhere));
    }

    /** What every command says of an option no command has. */
    public static String unknownOption(final String command, final String spelling)
    {
        return "unknown option " + spelling + ": 'rnic help " + command + "' lists its options";
    }

    private static GivenOption read(final CliOption option, final String spelling, final String text)
    {
        long number = 0;
        double decimal = 0;
        switch (option.kind())
        {
            case NUMBER -> number = Arguments.number(spelling, text, option.min(), option.max());
            case SIZE -> number = Arguments.bytes(spelling, text, option.min(), option.max());
            case DECIMAL -> decimal = decimal(option, spelling, text);
            case CHOICE ->
            {
                if (!option.choices().contains(text))
                {
                    throw new UsageException(spelling + " takes " + String.join("|", option.choices()) + ", not '" +
                        text + "'");
                }
            }
            case DIRECTORY -> Arguments.directory(spelling, text);
            case FILE, TEXT, NONE ->
            {
                // as given: the command reads it
            }
        }
        if (option.check() != null)
        {
            try
            {
                option.check().accept(text);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new UsageException(spelling + ": " + ex.getMessage());
            }
        }
        return new GivenOption(option, spelling, text, number, decimal);
    }

    private static double decimal(final CliOption option, final String spelling, final String text)
    {
        final double value;
        try
        {
            value = Double.parseDouble(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException(spelling + " takes a number, not '" + text + "'");
        }
        if (!(value >= option.decimalMin() && value <= option.decimalMax()))
        {
            throw new UsageException(spelling + " " + text + " out of range " + OptionHelp.range(option));
        }
        return value;
    }

    /** The options given, in their order. */
    public List<GivenOption> options()
    {
        return options;
    }

    /** The arguments that are no option, in their order. */
    public List<String> operands()
    {
        return operands;
    }

    /** Refuses operands, for a command that takes options only; returns its options. */
    public List<GivenOption> optionsOnly()
    {
        if (!operands.isEmpty())
        {
            throw new UsageException("unexpected argument '" + operands.get(0) + "': " + command +
                " takes options only");
        }
        return options;
    }
}
