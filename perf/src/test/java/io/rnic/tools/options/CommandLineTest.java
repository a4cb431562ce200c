package io.rnic.tools.options;

import io.rnic.tools.UsageException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The one parser: values, operands, and the one wording of each refusal. */
class CommandLineTest
{
    @Test
    void shouldReadValuesSwitchesAndOperandsInAnyOrder()
    {
        final CommandLine line = CommandLine.parse("write-bw", "-s", "4K", "10.0.0.1", "--verify", "--cpu=1", "-");
        final List<GivenOption> options = line.options();
        assertEquals(CliOption.SIZE, options.get(0).option());
        assertEquals(4096, options.get(0).number());
        assertEquals(CliOption.VERIFY, options.get(1).option());
        assertEquals("--cpu", options.get(2).spelling());
        assertEquals(1, options.get(2).intValue());
        assertEquals(List.of("10.0.0.1", "-"), line.operands());
    }

    @Test
    void shouldTakeAValueThatLooksLikeAnOption()
    {
        assertEquals("--no-huge -m 512", CommandLine.parse("driver", "--eal", "--no-huge -m 512").options().get(0).text());
        assertRefused("--rnr-retry -1 out of range 0..7", "simulate", "--rnr-retry", "-1");
    }

    @Test
    void shouldRefuseAnUnknownOptionNamingTheHelp()
    {
        assertRefused("unknown option --bogus: 'rnic help stat' lists its options", "stat", "--bogus");
        assertRefused("unknown option -Z: 'rnic help write-bw' lists its options", "write-bw", "-s", "64", "-Z");
    }

    @Test
    void shouldRefuseAnOptionOfOtherCommandsNamingThem()
    {
        assertRefused("-U does not apply to write-bw: it applies to write-lat, read-lat, send-lat, atomic-lat",
            "write-bw", "-U");
        assertRefused("--watch does not apply to devinfo: it applies to stat", "devinfo", "--watch", "10");
    }

    @Test
    void shouldRefuseAMissingValueShowingTheForm()
    {
        assertRefused("-s needs a value: -s SIZE", "write-bw", "-s");
        assertRefused("--dir needs a value: --dir DIR", "driver", "--dir");
        assertRefused("--flows needs a value: --flows N", "cc-sim", "--flows");
    }

    @Test
    void shouldRefuseAValueOutOfItsRange()
    {
        assertRefused("-p 0 out of range 1..65535", "rping", "-p", "0");
        assertRefused("-S 25 out of range 26..65536 bytes", "rping", "-S", "25");
        assertRefused("--loss 1.5 out of range 0..1", "simulate", "--loss", "1.5");
        assertRefused("--loss takes a number, not 'lots'", "simulate", "--loss", "lots");
        assertRefused("-n takes a whole number, not 'ten'", "write-bw", "-n", "ten");
        assertRefused("--cc takes dcqcn|none, not 'reno'", "write-bw", "--cc", "reno");
        assertRefused("--dir needs a directory, not ''", "stat", "--dir", "");
    }

    @Test
    void shouldRefuseAValueGivenToASwitchAndAnOperandWhereNoneIsTaken()
    {
        assertRefused("--verify takes no value: --verify, not --verify=yes", "write-bw", "--verify=yes");
        assertRefused("unexpected argument 'stray': cc-sim takes options only", () ->
            CommandLine.parse("cc-sim", "--flows", "2", "stray").optionsOnly());
    }

    @Test
    void shouldRefuseAnOptionOfTheOriginalToolRnicCannotHonour()
    {
        assertRefused("-t (completion timestamps): the engine does not timestamp completions", "rc-pingpong", "-t");
    }

    private static void assertRefused(final String message, final String command, final String... args)
    {
        assertRefused(message, () -> CommandLine.parse(command, args));
    }

    private static void assertRefused(final String message, final org.junit.jupiter.api.function.Executable parse)
    {
        assertEquals(message, assertThrows(UsageException.class, parse).getMessage());
    }
}
