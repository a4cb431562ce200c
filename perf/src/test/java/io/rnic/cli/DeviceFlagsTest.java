package io.rnic.cli;

import io.rnic.tools.ToolKind;
import io.rnic.tools.UsageException;
import io.rnic.tools.perftest.ToolOptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The flags a perftest or rdma-core user reaches for, in every command that takes them: {@code -d} naming the device
 * as devinfo prints it ({@code hca_id rnic_IFACE}), {@code -i 1} the port, {@code -V} the version. No interface of
 * the names used here exists, so each command that opens a port fails naming the interface it looked for.
 */
class DeviceFlagsTest
{
    /** No such interface: {@code rnic_} + this is the device name a user would copy from devinfo. */
    private static final String MISSING = "tenosuch0";

    private record Result(int status, String out, String err)
    {
    }

    private static Result run(final String... args)
    {
        final List<String> result = CliRunner.run(args);
        return new Result(Integer.parseInt(result.get(0)), result.get(1), result.get(2));
    }

    @Test
    void shouldTakeTheDeviceNameAsEveryToolsDashD()
    {
        for (final ToolKind kind : ToolKind.values())
        {
            for (final String flag : List.of("-d", "--ib-dev"))
            {
                assertEquals("te0", ToolOptions.parse(kind, new String[]{ flag, "rnic_te0" }).iface, kind + " " + flag);
            }
            assertEquals("te0", ToolOptions.parse(kind, new String[]{ "-d", "te0" }).iface, kind.command());
        }
    }

    @Test
    void shouldOpenTheInterfaceOfTheDeviceNamed()
    {
        final String expected = "no interface named '" + MISSING + "'";
        final List<List<String>> commands = List.of(
            List.of("driver", "-d", "rnic_" + MISSING),
            List.of("rping", "-s", "--iface", "rnic_" + MISSING),
            List.of("rping", "-s", "--ib-dev", "rnic_" + MISSING),
            List.of("mw-peer", "-d", "rnic_" + MISSING, "127.0.0.1"));
        for (final List<String> command : commands)
        {
            final Result result = run(command.toArray(String[]::new));
            assertEquals(2, result.status(), command + ": " + result.out() + result.err());
            assertTrue(result.err().startsWith("rnic " + command.get(0) + ": " + expected), command + ": " + result.err());
        }
    }

    @Test
    void shouldFindTheDriverOfTheDeviceNamed()
    {
        assertEquals(Path.of("/dev/shm/rnic-te0"), CncDirectory.ofInterface("-d", "rnic_te0"));
        assertEquals(Path.of("/dev/shm/rnic-te0"), CncDirectory.ofInterface("-d", "te0"));
        for (final String command : List.of("stat", "devinfo"))
        {
            final Result result = run(command, "-d", "rnic_" + MISSING);
            assertEquals(1, result.status(), command + ": " + result.err());
            assertTrue(result.err().startsWith("rnic " + command + ": no rnic driver at /dev/shm/rnic-" + MISSING +
                " "), result.err());
        }
    }

    @Test
    void shouldTakePortOneAndRefuseAnyOtherInOneLine()
    {
        for (final ToolKind kind : ToolKind.values())
        {
            ToolOptions.parse(kind, new String[]{ "-i", "1" });
            ToolOptions.parse(kind, new String[]{ "--ib-port", "1" });
            final UsageException ex =
                assertThrows(UsageException.class, () -> ToolOptions.parse(kind, new String[]{ "-i", "2" }));
            assertEquals("-i 2: the device has one port, 1 (as rxe's): give -i 1 or leave it out", ex.getMessage());
        }
        final Result devinfo = run("devinfo", "-i", "2", "--dir", "/nonexistent-rnic");
        assertEquals(2, devinfo.status(), devinfo.err());
        assertEquals("rnic devinfo: -i 2: the device has one port, 1 (as rxe's): give -i 1 or leave it out",
            devinfo.err().lines().findFirst().orElse(""));
        assertEquals(1, run("devinfo", "-i", "1", "--dir", "/nonexistent-rnic").status(), "no driver there");
    }

    @Test
    void shouldPrintTheVersionOnDashVWhereItMeansTheVersion()
    {
        final String version = "rnic " + RnicCli.version() + " (Java " + Runtime.version() + ")";
        for (final List<String> command : List.of(List.of("-V"), List.of("--version"), List.of("write-bw", "-V"),
            List.of("read-lat", "--version"), List.of("atomic-bw", "-s", "8", "-V")))
        {
            final Result result = run(command.toArray(String[]::new));
            assertEquals(0, result.status(), command + ": " + result.err());
            assertEquals(version, result.out().trim(), command.toString());
        }
        // rdma-core's pingpongs have no -V; rping's -V validates the data
        final Result pingpong = run("rc-pingpong", "-V");
        assertEquals(2, pingpong.status());
        assertFalse(pingpong.out().contains(version), pingpong.out());
        assertEquals("rnic rc-pingpong: -V does not apply to rc-pingpong: it applies to rping, write-lat, write-bw, " +
            "read-lat, read-bw, send-lat, send-bw, atomic-lat, atomic-bw", pingpong.err().lines().findFirst().orElse(""));
    }
}
