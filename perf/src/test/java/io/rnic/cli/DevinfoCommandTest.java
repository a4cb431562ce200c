package io.rnic.cli;

import io.rnic.datapath.driver.DeviceDescription;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.transport.LocalPort;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code rnic devinfo} over a CnC file made here as a driver makes it: ibv_devinfo's layout, tabs included. */
class DevinfoCommandTest
{
    private static final long MAC = 0x52_54_00_12_34_56L;

    @TempDir
    Path dir;

    private record Result(int status, String out, String err)
    {
    }

    private Result devinfo(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = DevinfoCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8), dir);
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static LocalPort port()
    {
        final LocalPort port = new LocalPort(MAC).ethernetMtu(1500);
        port.addGid(0xFE80_0000_0000_0000L, InterfaceAddresses.eui64(MAC));
        port.addIpv4(0x0A_00_00_01);
        return port;
    }

    @Test
    void shouldPrintTheDeviceInIbvDevinfosLayout()
    {
        try (DriverCncFixture driver = new DriverCncFixture(dir))
        {
            DeviceDescription.write(driver.cnc.deviceInfoBuffer(), "veth0", DeviceDescription.PORT_KIND_AFPACKET, port());
            driver.markReady();

            final Result result = devinfo("--dir", dir.toString());

            assertEquals(0, result.status(), result.err());
            assertEquals(String.join("\n",
                "hca_id:\trnic_veth0",
                "\ttransport:\t\t\tInfiniBand (0)",
                "\tfw_ver:\t\t\t\tdev",
                "\tnode_guid:\t\t\t5054:00ff:fe12:3456",
                "\tsys_image_guid:\t\t\t5054:00ff:fe12:3456",
                "\tvendor_id:\t\t\t0xffffff",
                "\tvendor_part_id:\t\t\t0",
                "\thw_ver:\t\t\t\t0x0",
                "\tphys_port_cnt:\t\t\t1",
                "\t\tport:\t1",
                "\t\t\tstate:\t\t\tPORT_ACTIVE (4)",
                "\t\t\tmax_mtu:\t\t4096 (5)",
                "\t\t\tactive_mtu:\t\t1024 (3)",
                "\t\t\tsm_lid:\t\t\t0",
                "\t\t\tport_lid:\t\t0",
                "\t\t\tport_lmc:\t\t0x00",
                "\t\t\tlink_layer:\t\tEthernet",
                "", ""), result.out());
        }
    }

    @Test
    void shouldAddTheLimitsAndTheGidTableWithVerbose()
    {
        try (DriverCncFixture driver = new DriverCncFixture(dir))
        {
            DeviceDescription.write(driver.cnc.deviceInfoBuffer(), "veth0", DeviceDescription.PORT_KIND_AFPACKET, port());
            driver.markReady();

            final Result result = devinfo("--dir", dir.toString(), "-v");

            assertEquals(0, result.status(), result.err());
            final List<String> lines = result.out().lines().toList();
            assertTrue(lines.contains("\tmax_qp_wr:\t\t\t65536"), result.out());
            assertTrue(lines.contains("\tmax_sge:\t\t\t16"), result.out());
            assertTrue(lines.contains("\tmax_qp_init_rd_atom:\t\t16"), result.out());
            assertTrue(lines.contains("\tnetdev:\t\t\t\tveth0"), result.out());
            assertTrue(lines.contains("\t\t\tGID[  0]:\t\tfe80::5054:ff:fe12:3456, RoCE v2"), result.out());
            assertTrue(lines.contains("\t\t\tGID[  1]:\t\t::ffff:10.0.0.1, RoCE v2"), result.out());
            assertTrue(lines.indexOf("\t\tport:\t1") < lines.indexOf("\t\t\tGID[  0]:\t\tfe80::5054:ff:fe12:3456, RoCE v2"));
            assertTrue(lines.indexOf("\tmax_qp_wr:\t\t\t65536") < lines.indexOf("\t\tport:\t1"));
        }
    }

    @Test
    void shouldSayInOneLineThatNoDriverIsThere()
    {
        final Result result = devinfo("--dir", dir.resolve("nothing").toString());

        assertEquals(1, result.status());
        assertEquals(List.of("rnic devinfo: no rnic driver at " + dir.resolve("nothing") + " (no cnc.dat): start one " +
            "with bin/rnic driver -d IFACE --dir " + dir.resolve("nothing")), result.err().lines().toList());
        assertEquals("", result.out());
    }

    @Test
    void shouldSayInOneLineThatAKilledDriverIsNotRunning() throws Exception
    {
        try (DriverCncFixture driver = new DriverCncFixture(dir))
        {
            DeviceDescription.write(driver.cnc.deviceInfoBuffer(), "veth0", DeviceDescription.PORT_KIND_AFPACKET, port());
            driver.markReady();
            driver.kill(); // its CnC file stays, describing a port nobody serves any more

            final Result result = devinfo("--dir", dir.toString());

            assertEquals(1, result.status(), result.out());
            assertEquals("rnic devinfo: the rnic driver at " + dir + " (pid " + ProcessHandle.current().pid() +
                ") is not running: no process holds " + dir.resolve("driver.lock") + " (it was killed or crashed): " +
                "start it again with bin/rnic driver\n", result.err());
            assertEquals("", result.out());
        }
    }

    @Test
    void shouldSayWhenTheDriverHasNotDescribedItsDeviceYet()
    {
        try (DriverCncFixture driver = new DriverCncFixture(dir))
        {
            driver.markReady();

            final Result result = devinfo("--dir", dir.toString());

            assertEquals(1, result.status());
            assertEquals(1, result.err().lines().count(), result.err());
            assertTrue(result.err().contains("has not described its device yet"), result.err());
        }
    }

    @Test
    void shouldTakeAnInterfaceForTheDriversDefaultDirectory()
    {
        final Result result = devinfo("-d", "rnic-test-no-such-if");

        assertEquals(1, result.status());
        assertTrue(result.err().startsWith("rnic devinfo: no rnic driver at /dev/shm/rnic-rnic-test-no-such-if "),
            result.err());
    }

    @Test
    void shouldListTheCommandsInHelp()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, RnicCli.run(new String[]{ "help", "devinfo" }, new PrintStream(out, true, StandardCharsets.UTF_8),
            System.err));
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("usage: rnic " + DevinfoCommand.SYNOPSIS));
        out.reset();
        assertEquals(0, RnicCli.run(new String[]{ "help", "stat" }, new PrintStream(out, true, StandardCharsets.UTF_8),
            System.err));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("--watch MS"));
    }
}
