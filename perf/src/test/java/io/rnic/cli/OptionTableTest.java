package io.rnic.cli;

import io.rnic.cli.CommandLineErrorsTest.Result;
import io.rnic.tools.ToolKind;
import io.rnic.tools.options.CliOption;
import io.rnic.tools.options.OptionHelp;
import io.rnic.tools.options.Scope;
import io.rnic.tools.options.ValueKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every command against the option table: its help lists exactly the options the table gives it, its parser reads
 * each of them, and refuses an unknown option, a missing value and a value out of range in the one wording.
 */
class OptionTableTest
{
    private static Result run(final String... args)
    {
        return CommandLineErrorsTest.run(args);
    }

    @TempDir
    Path dir;

    @Test
    void shouldListExactlyTheTablesOptionsInEveryCommandsHelp()
    {
        for (final String command : Scope.COMMANDS)
        {
            final Result help = run("help", command);
            assertEquals(0, help.status(), command);
            final Set<String> expected = new TreeSet<>();
            for (final CliOption option : CliOption.forCommand(command))
            {
                if (option.refusal() == null)
                {
                    expected.addAll(option.spellings());
                }
            }
            assertEquals(expected, ToolUsageTest.listedFlags(help.out().substring("usage: rnic ".length())),
                command + "'s help:\n" + help.out());
        }
    }

    @Test
    void shouldRefuseAnUnknownOptionInOneWordingInEveryCommand()
    {
        for (final String command : Scope.COMMANDS)
        {
            final Result result = run(command, "--bogus");
            assertEquals(2, result.status(), command);
            assertEquals("rnic " + command + ": unknown option --bogus: 'rnic help " + command + "' lists its options",
                result.firstErrorLine());
            assertEquals("usage: rnic " + synopsis(command), result.err().lines().skip(1).findFirst().orElse(""));
        }
    }

    @Test
    void shouldRefuseAMissingValueInOneWordingInEveryCommand()
    {
        for (final String command : Scope.COMMANDS)
        {
            for (final CliOption option : CliOption.forCommand(command))
            {
                if (option.takesValue())
                {
                    final Result result = run(command, option.spelling());
                    assertEquals(2, result.status(), command);
                    assertEquals("rnic " + command + ": " + option.spelling() + " needs a value: " +
                        option.spelling() + " " + option.valueName(), result.firstErrorLine());
                }
            }
        }
    }

    @Test
    void shouldRefuseAValueOutOfRangeInOneWordingInEveryCommand()
    {
        int checked = 0;
        for (final String command : Scope.COMMANDS)
        {
            for (final CliOption option : CliOption.forCommand(command))
            {
                final boolean whole = option.kind() == ValueKind.NUMBER ||
                    option.kind() == ValueKind.SIZE;
                if (whole && option.max() < Long.MAX_VALUE)
                {
                    final String above = String.valueOf(option.max() + 1);
                    final Result result = run(command, option.spelling(), above);
                    assertEquals(2, result.status(), command);
                    assertEquals("rnic " + command + ": " + option.spelling() + " " + above + " out of range " +
                        option.min() + ".." + option.max() +
                        (option.kind() == ValueKind.SIZE ? " bytes" : ""),
                        result.firstErrorLine());
                    checked++;
                }
            }
        }
        assertTrue(checked > 100, "ranges checked: " + checked);
    }

    /** A command whose table gives it an option its parser does not read fails with "does not read". */
    @Test
    void shouldReadEveryOptionTheTableGivesACommand()
    {
        final List<String> failures = new ArrayList<>();
        for (final String command : Scope.COMMANDS)
        {
            for (final CliOption option : CliOption.forCommand(command))
            {
                if (option.refusal() != null || option == CliOption.HELP || option == CliOption.VERSION)
                {
                    continue;
                }
                final List<String> args = new ArrayList<>(List.of(command, option.spelling()));
                if (option.takesValue())
                {
                    args.add(sample(option));
                }
                args.addAll(poison(command));
                final Result result = run(args.toArray(String[]::new));
                final String line = result.firstErrorLine();
                if (result.status() == 0 || !line.contains(expectedFailure(command)))
                {
                    failures.add(String.join(" ", args) + " -> " + result.status() + " " + line);
                }
            }
        }
        assertEquals(List.of(), failures);
    }

    /** A valid value of {@code option}. */
    private String sample(final CliOption option)
    {
        return switch (option.kind())
        {
            case NUMBER -> option.min() == Long.MIN_VALUE ? "0" : String.valueOf(option.min());
            case SIZE -> String.valueOf(option.min());
            case DECIMAL -> "1";
            case CHOICE -> option.choices().get(0);
            case DIRECTORY -> dir.toString();
            case FILE -> dir.resolve("x").toString();
            default -> switch (option)
            {
                case INTERFACE, RPING_INTERFACE -> "lo";
                case IB_PORT -> "1";
                case IDLE -> "spin";
                case PORT_KIND -> "afpacket";
                case EAL -> "--no-huge";
                case IP -> "10.0.0.1/24";
                case OOB -> "127.0.0.1";
                case CC_PARAM -> "g=1/256";
                case OPS_MIX -> "write";
                case CONNECTION -> "RC";
                default -> "10.0.0.1";
            };
        };
    }

    /** What makes {@code command} fail after it read its options and before it does any work. */
    private List<String> poison(final String command)
    {
        if (ToolKind.byCommand(command) != null)
        {
            return List.of("10.0.0.1", "10.0.0.2");
        }
        return switch (command)
        {
            case "driver" -> List.of("-d", "lo", "--cpu", "1023");
            case "stat", "devinfo" -> List.of("--dir", dir.resolve("none").toString());
            case "simulate" -> List.of("--loss", "1");
            case "cc-sim" -> List.of("--flows", "2", "--spacing-ms", "10000", "--duration-ms", "1");
            case "demo" -> List.of("--out", dir.resolve("none/x.pcap").toString());
            case "rping" -> List.of("-s", "-c");
            default -> List.of(); // inspect without a file, mw-peer without SERVER, dpdk-pingpong without -d or --eal
        };
    }

    private static String expectedFailure(final String command)
    {
        if (ToolKind.byCommand(command) != null)
        {
            return "one server address at most";
        }
        return switch (command)
        {
            case "driver" -> "--cpu 1023";
            case "stat", "devinfo" -> "rnic " + command + ": ";
            case "simulate" -> "--loss 1 loses every frame";
            case "cc-sim" -> "the last flow starts after the end";
            case "demo" -> "no such directory";
            case "rping" -> "give one of -s (server) and -c (client)";
            case "inspect" -> "no capture file given";
            case "mw-peer" -> "mw-peer needs the SERVER";
            default -> "-d DEVICE and --eal 'EAL ARGS' are needed";
        };
    }

    private static String synopsis(final String command)
    {
        final ToolKind kind = ToolKind.byCommand(command);
        final String operands = kind != null ? "[SERVER_ADDRESS]" : switch (command)
        {
            case "inspect" -> "FILE.pcap|FILE.pcapng ...";
            case "mw-peer" -> "SERVER";
            default -> "";
        };
        return OptionHelp.synopsis(command, operands);
    }

    @Test
    void shouldRefuseTheDriversOldCpuRange()
    {
        final Result result = run("driver", "-d", "lo", "--cpu", "4095");
        assertNotEquals(0, result.status());
        assertEquals("rnic driver: --cpu 4095 out of range 0..1023", result.firstErrorLine());
    }
}
