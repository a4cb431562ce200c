package io.rnic.cli;

import io.rnic.datapath.affinity.ThreadAffinity;
import io.rnic.datapath.driver.ClientQuotas;
import io.rnic.datapath.driver.Driver;
import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.datapath.endpoint.EndpointOptions;
import io.rnic.datapath.port.PortException;
import io.rnic.tools.Arguments;
import io.rnic.tools.InterfaceState;
import io.rnic.tools.PortFactory;
import io.rnic.tools.Ports;
import io.rnic.tools.UsageException;
import io.rnic.tools.perftest.ToolOptions;
import io.rnic.transport.LocalPort;
import sun.misc.Signal;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code rnic driver}: runs one endpoint on one port as a service for every application of the machine (see
 * {@link Driver}) until SIGTERM or SIGINT, then destroys what its clients held and ends with status 0.
 */
final class DriverCommand
{
    static final String SYNOPSIS = "driver -d IFACE [--port afpacket|dpdk] [--eal \"EAL ARGS\"] [--port-mtu BYTES] " +
        "[--ip ADDR]... [--dir DIR] [--client-timeout-ms N] [--cpu N] [--idle STRATEGY] [--vlan ID] " +
        "[--cnp-dscp DSCP] [--cnp-prio PRIO] [--max-client-qps N] [--max-client-cqs N] [--max-client-srqs N] " +
        "[--max-client-mrs N] [--max-client-mr-bytes BYTES] [--max-client-queue-bytes BYTES]";
    static final String DETAILS = String.join("\n",
        "  -d IFACE                the interface (AF_PACKET) or DPDK device the driver serves; its device's name",
        "                          (rnic_IFACE, devinfo's hca_id) names it too; one up without a carrier (just",
        "                          brought up) gets " + InterfaceState.GRACE_MS_DEFAULT + " ms for it " +
        "(RNIC_JAVA_OPTS=-D" + InterfaceState.GRACE_MS_PROP_NAME + "=MS)",
        "  --port KIND             afpacket (default) or dpdk",
        "  --eal \"ARGS\"            DPDK: EAL's arguments, as one string; EAL's start-up output shows only its",
        "                          warnings and errors (all of it with RNIC_DEBUG set), a failure is one line",
        "  --port-mtu BYTES        DPDK: the device's Ethernet MTU (default 4200, path MTU 4096, where the device",
        "                          carries it: a memif needs bsize=8192 in its --vdev, at both ends; else the",
        "                          device's own)",
        "  --ip ADDR[/PREFIX]      DPDK: an address of the port (IPv4 or IPv6), repeatable",
        "  --dir DIR               its directory (CnC file and lock); default /dev/shm/rnic-IFACE",
        "  --client-timeout-ms N   a client without a keepalive for N ms is timed out and its QPs, CQs and",
        "                          regions destroyed; clients also declare the driver gone after N ms without",
        "                          its heartbeat (default 10000)",
        "  --cpu N                 pin the engine thread to CPU N (one this process may run on: else refused",
        "                          at once, exit 2)",
        "  --idle STRATEGY         the engine thread's idle strategy: spin (default), yield, backoff, sleep",
        "  --vlan ID               tag every frame with 802.1Q VLAN ID (0-4094), the PCP each QP's service level;",
        "                          -d a kernel VLAN device (veth0.10) is tagged so on its parent without it",
        "  --cnp-dscp DSCP         the DSCP of the CNPs the driver sends (0-63; default 48, ConnectX's)",
        "  --cnp-prio PRIO         their 802.1Q priority on a tagged port (0-7; default 6, ConnectX's)",
        "Each client's quotas (a create past one fails with ENOMEM naming the flag, counted in 'stat'; shown by",
        "'devinfo -v'; BYTES take a K, M, G or T suffix):",
        "  --max-client-qps N      QPs (default " + ClientQuotas.QPS_DEFAULT + ")",
        "  --max-client-cqs N      CQs (default " + ClientQuotas.CQS_DEFAULT + ")",
        "  --max-client-srqs N     SRQs (default " + ClientQuotas.SRQS_DEFAULT + ")",
        "  --max-client-mrs N      memory regions (default " + ClientQuotas.MRS_DEFAULT + ")",
        "  --max-client-mr-bytes BYTES     the lengths of its regions, summed (default: the machine's memory)",
        "  --max-client-queue-bytes BYTES  the driver's memory its QPs' work queues take (default: a quarter of",
        "                          the device's, which is half of the driver's heap: RNIC_JAVA_OPTS=-Xmx...)",
        "Clients attach with --driver DIR (the tools) or DriverContext.open(DIR) (the library); 'bin/rnic stat",
        "--dir DIR' shows its counters live, 'bin/rnic devinfo --dir DIR' its device. One driver per directory",
        "and per interface: a second one, or a tool started without --driver on the interface, is refused.",
        "A client that departs without detaching (it exited or was killed) is reclaimed, counted and told in one",
        "line here. Ends on SIGTERM or SIGINT (status 0), removing what it created in its directory.");

    private DriverCommand()
    {
    }

    static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        String iface = null;
        String portKind = "afpacket";
        List<String> eal = null;
        final List<String> addresses = new ArrayList<>();
        Path directory = null;
        long clientTimeoutMs = 10_000;
        int cpu = -1;
        int portMtu = 0;
        String idle = "spin";
        int vlanId = LocalPort.NO_VLAN;
        int cnpDscp = LocalPort.CNP_DSCP_DEFAULT;
        int cnpPriority = LocalPort.CNP_PRIORITY_DEFAULT;
        ClientQuotas quotas = ClientQuotas.defaults();
        for (int i = 0; i < args.length; i++)
        {
            final String option = args[i];
            switch (option)
            {
                case "-d", "--ib-dev" -> iface = Ports.interfaceOf(Arguments.value(args, ++i, option));
                case "--port" -> portKind = Arguments.value(args, ++i, option);
                case "--eal" -> eal = Arrays.asList(Arguments.value(args, ++i, option).trim().split("\\s+"));
                case "--ip" -> addresses.add(ToolOptions.address(Arguments.value(args, ++i, option)));
                case "--port-mtu" -> portMtu = (int)Arguments.number(args, ++i, option, 576, 9600);
                case "--dir" -> directory = Arguments.directory(args, ++i, option);
                case "--client-timeout-ms" -> clientTimeoutMs = Arguments.number(args, ++i, option, 100, 3_600_000);
                case "--cpu" -> cpu = (int)Arguments.number(args, ++i, option, 0, 4095);
                case "--idle" -> idle = Arguments.value(args, ++i, option);
                case "--vlan" -> vlanId = (int)Arguments.number(args, ++i, option, 0, LocalPort.MAX_VLAN_ID);
                case "--cnp-dscp" -> cnpDscp = (int)Arguments.number(args, ++i, option, 0, 63);
                case "--cnp-prio" -> cnpPriority = (int)Arguments.number(args, ++i, option, 0, 7);
                case "--max-client-qps" -> quotas = quotas.withQps(count(args, ++i, option));
                case "--max-client-cqs" -> quotas = quotas.withCqs(count(args, ++i, option));
                case "--max-client-srqs" -> quotas = quotas.withSrqs(count(args, ++i, option));
                case "--max-client-mrs" -> quotas = quotas.withMrs(count(args, ++i, option));
                case "--max-client-mr-bytes" -> quotas = quotas.withRegisteredBytes(bytes(args, ++i, option));
                case "--max-client-queue-bytes" -> quotas = quotas.withQueueBytes(bytes(args, ++i, option));
                default -> throw new UsageException("unknown argument " + option);
            }
        }
        if (iface == null)
        {
            throw new UsageException("-d IFACE is needed: the port the driver serves");
        }
        if (cpu >= 0)
        {
            try
            {
                ThreadAffinity.checkAllowed("--cpu " + cpu, cpu, 1); // at once, as the tools: before the port opens
            }
            catch (final IllegalArgumentException ex)
            {
                throw new UsageException(ex.getMessage());
            }
        }
        final Path dir = directory != null ? directory : Driver.defaultDirectory(iface);
        final PortFactory.OpenedPort opened;
        try
        {
            opened = Ports.open(new PortFactory.Request(portKind, iface, 1, false, eal, addresses, portMtu, vlanId,
                cnpDscp, cnpPriority));
        }
        catch (final IllegalArgumentException | PortException ex)
        {
            throw new UsageException(ex.getMessage());
        }
        final boolean afPacket = "afpacket".equals(portKind);
        final EndpointOptions options = EndpointOptions.defaults().withCpu(cpu).withIdleStrategy(idle)
            .withHoldRocePort(afPacket).withAnswerNeighbours(!afPacket || vlanId != LocalPort.NO_VLAN);
        final CountDownLatch stop = new CountDownLatch(1);
        final Driver driver;
        try
        {
            driver = Driver.start(dir, TimeUnit.MILLISECONDS.toNanos(clientTimeoutMs), quotas,
                counters -> Endpoint.start(opened.ports(), opened.addressing(), options, counters),
                line -> out.println("rnic driver: " + line));
        }
        catch (final RuntimeException ex)
        {
            opened.close();
            err.println("rnic driver: " + ex.getMessage());
            return 2;
        }
        // a handler, not a shutdown hook: the driver ends with status 0 after its clean stop, as a service should
        Signal.handle(new Signal("TERM"), signal -> stop.countDown());
        Signal.handle(new Signal("INT"), signal -> stop.countDown());
        out.println("rnic driver on " + iface + " (" + portKind + "), directory " + dir + ", pid " +
            ProcessHandle.current().pid() + "; clients attach with --driver " + dir + "; SIGTERM or Ctrl-C stops it");
        out.flush();
        try
        {
            stop.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        final int clients = driver.clientCount();
        driver.close();
        out.println("rnic driver on " + iface + " stopped" + (clients > 0 ? " (" + clients + " clients detached)" : ""));
        return 0;
    }

    /** A quota's count: 1 up to what a device can number. */
    private static int count(final String[] args, final int i, final String option)
    {
        return (int)Arguments.number(args, i, option, 1, Integer.MAX_VALUE);
    }

    /** A quota of bytes, in the forms every size flag takes ({@link Arguments#bytes}). */
    private static long bytes(final String[] args, final int i, final String option)
    {
        return Arguments.bytes(option, Arguments.value(args, i, option), 1, Long.MAX_VALUE);
    }
}
