package io.rnic.tools.options;

import io.rnic.tools.Arguments;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A command's synopsis and its options' help, written from {@link CliOption}'s table: each option the table gives
 * the command, once, with its spellings, its value, its range and its default, so that the help cannot list an option
 * the parser refuses nor a range it does not apply.
 */
public final class OptionHelp
{
    /** The widest line of the help. */
    static final int WIDTH = 112;
    /** Where an option's text starts, after its spellings. */
    private static final int TEXT_COLUMN = 26;

    private OptionHelp()
    {
    }

    /**
     * {@code command}, then every option the synopsis shows ({@code [-s SIZE]}, {@code -d IFACE} when required,
     * {@code [-d IFACE | --driver DIR]} for alternatives), then {@code operands} (e.g. {@code [SERVER_ADDRESS]}).
     */
    public static String synopsis(final String command, final String operands)
    {
        final StringBuilder text = new StringBuilder(command);
        final Set<CliOption> shown = new HashSet<>();
        final List<CliOption> options = CliOption.forCommand(command);
        for (final CliOption option : options)
        {
            if (!option.inSynopsis() || shown.contains(option))
            {
                continue;
            }
            final boolean required = option.isRequiredIn(command);
            final StringBuilder fragment = new StringBuilder(usage(option));
            for (final CliOption other : options)
            {
                if (!required && other.alternatives().contains(option) && !other.isRequiredIn(command))
                {
                    fragment.append(" | ").append(usage(other));
                    shown.add(other);
                }
            }
            text.append(' ').append(required ? fragment : "[" + fragment + "]");
            if (option.isRepeatable())
            {
                text.append("...");
            }
        }
        return operands.isEmpty() ? text.toString() : text.append(' ').append(operands).toString();
    }

    /** Every option {@code command} takes, one entry each, in the table's order. */
    public static String help(final String command)
    {
        final List<String> lines = new ArrayList<>();
        for (final CliOption option : CliOption.forCommand(command))
        {
            if (option.refusal() != null)
            {
                lines.add("  (no " + String.join(", ", option.spellings()) + ": " + option.refusal() + ")");
                continue;
            }
            final String head = "  " + String.join(", ", option.spellings()) +
                (option.takesValue() ? " " + option.valueName() : "");
            wrap(lines, head, describe(option));
        }
        return String.join("\n", lines);
    }

    /** The option's help, its range and its default. */
    static String describe(final CliOption option)
    {
        final String range = range(option);
        final List<String> facts = new ArrayList<>();
        if (!range.isEmpty())
        {
            facts.add(range);
        }
        if (option.defaultText() != null)
        {
            facts.add("default " + option.defaultText());
        }
        return option.help() + (facts.isEmpty() ? "" : " (" + String.join("; ", facts) + ")");
    }

    /** What values the option takes, as its help and its errors say it; empty when its value name says it. */
    public static String range(final CliOption option)
    {
        return switch (option.kind())
        {
            case NUMBER -> option.min() == Long.MIN_VALUE ? "any whole number" :
                option.max() == Long.MAX_VALUE ? option.min() + " or more" : option.min() + ".." + option.max();
            case SIZE -> (option.max() == Long.MAX_VALUE ? option.min() + " byte or more" :
                option.min() + ".." + option.max() + " bytes") + "; " + Arguments.SIZE_FORMS;
            case DECIMAL -> option.decimalMax() == Double.MAX_VALUE ? decimal(option.decimalMin()) + " or more" :
                decimal(option.decimalMin()) + ".." + decimal(option.decimalMax());
            case CHOICE -> option.valueName().equals(String.join("|", option.choices())) ? "" :
                String.join("|", option.choices());
            default -> "";
        };
    }

    private static String decimal(final double value)
    {
        return value == Math.rint(value) ? String.valueOf((long)value) : String.valueOf(value);
    }

    private static String usage(final CliOption option)
    {
        return option.spelling() + (option.takesValue() ? " " + option.valueName() : "");
    }

    /** {@code head} and {@code text} at the text column, wrapped at the help's width under it. */
    private static void wrap(final List<String> lines, final String head, final String text)
    {
        StringBuilder line = new StringBuilder(head);
        line.append(" ".repeat(Math.max(2, TEXT_COLUMN - head.length())));
        boolean first = true;
        for (final String word : text.split(" "))
        {
            if (!first && line.length() + 1 + word.length() > WIDTH)
            {
                lines.add(line.toString());
                line = new StringBuilder(" ".repeat(TEXT_COLUMN));
                first = true;
            }
            if (!first)
            {
                line.append(' ');
            }
            line.append(word);
            first = false;
        }
        lines.add(line.toString());
    }
}
