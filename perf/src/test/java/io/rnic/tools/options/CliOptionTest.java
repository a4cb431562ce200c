package io.rnic.tools.options;

import io.rnic.tools.UsageException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The option table itself: one meaning per spelling and command, every option somewhere, one range per option. */
class CliOptionTest
{
    @Test
    void shouldGiveEachSpellingOneMeaningPerCommand()
    {
        final List<String> clashes = new ArrayList<>();
        for (final String command : Scope.COMMANDS)
        {
            final Map<String, CliOption> bySpelling = new HashMap<>();
            for (final CliOption option : CliOption.forCommand(command))
            {
                for (final String spelling : option.spellings())
                {
                    final CliOption other = bySpelling.put(spelling, option);
                    if (other != null)
                    {
                        clashes.add(command + " " + spelling + ": " + other + " and " + option);
                    }
                }
            }
        }
        assertEquals(List.of(), clashes);
    }

    @Test
    void shouldGiveEveryOptionToACommandWithAValueNameWhenItTakesAValue()
    {
        for (final CliOption option : CliOption.values())
        {
            assertFalse(option.scope().commandList().isEmpty(), option + " applies to no command");
            assertEquals(option.takesValue(), option.valueName() != null, option.toString());
            assertFalse(option.help().isEmpty(), option + " has no help");
            for (final String spelling : option.spellings())
            {
                assertTrue(spelling.matches("-[A-Za-z]|--[A-Za-z][\\w-]*"), option + ": " + spelling);
            }
        }
    }

    /** What the issue found: --cpu took 0..1023 in the tools and dpdk-pingpong, 0..4095 in the driver. */
    @Test
    void shouldTakeOneCpuRangeInEveryCommand()
    {
        final List<String> commands = CliOption.CPU.scope().commandList();
        assertTrue(commands.containsAll(List.of("driver", "write-bw", "rc-pingpong", "dpdk-pingpong")), commands.toString());
        for (final String command : commands)
        {
            assertEquals(1023, CommandLine.parse(command, "--cpu", "1023").options().get(0).number(), command);
            final UsageException ex = assertThrows(UsageException.class,
                () -> CommandLine.parse(command, "--cpu", "1024"), command);
            assertEquals("--cpu 1024 out of range 0..1023", ex.getMessage(), command);
        }
    }

    @Test
    void shouldFindTheMeaningASpellingHasForTheCommand()
    {
        // the same letter means other things in perftest's tools, rdma-core's pingpongs and rping
        assertEquals(CliOption.CONNECTION, CommandLine.find("write-bw", "-c"));
        assertEquals(CliOption.CHK, CommandLine.find("rc-pingpong", "-c"));
        assertEquals(CliOption.RPING_CLIENT, CommandLine.find("rping", "-c"));
        assertEquals(CliOption.TX_DEPTH, CommandLine.find("write-lat", "-t"));
        assertEquals(CliOption.RPING_TOS, CommandLine.find("rping", "-t"));
        assertEquals(CliOption.INTERFACE, CommandLine.find("driver", "-d"));
        assertEquals(CliOption.RPING_DEBUG, CommandLine.find("rping", "-d"));
        assertNotNull(CommandLine.find("stat", "--iface"));
    }
}
