package io.rnic.cli;

import io.rnic.cnc.CncException;
import io.rnic.cnc.CncFile;
import io.rnic.cnc.DeviceInfo;
import io.rnic.cnc.DriverProcess;
import io.rnic.tools.Ports;
import io.rnic.tools.options.CommandLine;
import io.rnic.tools.options.GivenOption;
import io.rnic.tools.options.OptionHelp;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code rnic devinfo}: the device of a running driver, printed in {@code ibv_devinfo}'s layout ({@code -v}: with the
 * limits, the GID table and rnic's own entries), from the device information block of the driver's CnC file. It
 * reads the mapped file only: the driver's threads do nothing for it.
 */
final class DevinfoCommand
{
    static final String SYNOPSIS = OptionHelp.synopsis("devinfo", "");
    static final String DETAILS = String.join("\n",
        OptionHelp.help("devinfo"),
        "GID[i] is the index a tool on this port takes as -x i (-g i): rnic speaks RoCE v2 only, so it numbers one",
        "entry per address (0 the fe80:: EUI-64 GID, then IPv4, then the other IPv6) where rxe lists a v1 and a v2",
        "entry per address. Exit status 1 when no driver is there or ready, or its process is gone (one line saying",
        "so).");

    /** What ibv_devinfo prints without -v; every other entry only with it. */
    private static final Set<String> BRIEF = Set.of("hca_id", "transport", "fw_ver", "node_guid", "sys_image_guid",
        "vendor_id", "vendor_part_id", "hw_ver", "phys_port_cnt", "port", "state", "max_mtu", "active_mtu", "sm_lid",
        "port_lid", "port_lmc", "link_layer");
    /** Columns where ibv_devinfo's values start (tabs of 8): device entries, port entries. */
    private static final int DEVICE_VALUE_COLUMN = 40;
    private static final int PORT_VALUE_COLUMN = 48;

    private DevinfoCommand()
    {
    }

    static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        return run(args, out, err, CncDirectory.SHM);
    }

    /** With {@code shm} where drivers' directories are looked for when none is named. */
    static int run(final String[] args, final PrintStream out, final PrintStream err, final Path shm)
    {
        Path dir = null;
        boolean verbose = false;
        for (final GivenOption given : CommandLine.parse("devinfo", args).optionsOnly())
        {
            switch (given.option())
            {
                case INTERFACE -> dir = CncDirectory.ofInterface(given.spelling(), given.text());
                case DIR -> dir = given.path();
                case IB_PORT -> Ports.ibPort(given.spelling(), given.text());
                case VERBOSE -> verbose = true;
                default -> throw given.notHandled("devinfo");
            }
        }
        final List<Map.Entry<String, String>> entries;
        try
        {
            final Path directory = dir != null ? dir : CncDirectory.only(shm);
            try (CncFile cnc = CncFile.open(directory))
            {
                final String notRunning = DriverProcess.notRunning(directory, cnc.driverPid());
                if (notRunning != null)
                {
                    // its CnC file outlives it: the port it describes is served by nobody
                    throw new CncException(notRunning + ": start it again with bin/rnic driver");
                }
                entries = DeviceInfo.read(cnc.deviceInfoBuffer());
            }
            if (entries.isEmpty())
            {
                throw new CncException("the driver at " + directory + " has not described its device yet: is it " +
                    "still starting?");
            }
        }
        catch (final CncException ex)
        {
            err.println("rnic devinfo: " + ex.getMessage());
            return 1;
        }
        out.print(format(entries, verbose));
        return 0;
    }

    /** The port's addressing in machine form, which the driver writes for its clients (shown above in human form). */
    private static boolean isForClients(final String key)
    {
        return key.equals(DeviceInfo.PORT_MAC) || key.equals(DeviceInfo.PORT_ETHERNET_MTU) ||
            key.startsWith(DeviceInfo.PORT_GID_PREFIX);
    }

    /** The entries as ibv_devinfo lays them out: the device's, then {@code port:} and the port's beneath it. */
    static String format(final List<Map.Entry<String, String>> entries, final boolean verbose)
    {
        final StringBuilder text = new StringBuilder();
        boolean inPort = false;
        for (final Map.Entry<String, String> entry : entries)
        {
            final String key = entry.getKey();
            if ((!verbose && !BRIEF.contains(key)) || isForClients(key))
            {
                continue;
            }
            switch (key)
            {
                case "hca_id" -> text.append("hca_id:\t").append(entry.getValue());
                case "port" ->
                {
                    inPort = true;
                    text.append("\t\tport:\t").append(entry.getValue());
                }
                default -> line(text, inPort ? 3 : 1, key, inPort ? PORT_VALUE_COLUMN : DEVICE_VALUE_COLUMN)
                    .append(entry.getValue());
            }
            text.append('\n');
        }
        return text.append('\n').toString();
    }

    private static StringBuilder line(final StringBuilder text, final int indentTabs, final String key, final int valueColumn)
    {
        text.append("\t".repeat(indentTabs)).append(key).append(':');
        int column = indentTabs * 8 + key.length() + 1;
        do
        {
            text.append('\t');
            column = (column / 8 + 1) * 8;
        }
        while (column < valueColumn);
        return text;
    }
}
