package io.rnic.cli;

import io.rnic.datapath.affinity.ThreadAffinity;
import io.rnic.datapath.driver.ClientQuotas;
import io.rnic.datapath.driver.Driver;
import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.datapath.endpoint.EndpointOptions;
import io.rnic.datapath.port.PortException;
import io.rnic.tools.PortFactory;
import io.rnic.tools.Ports;
import io.rnic.tools.UsageException;
import io.rnic.tools.options.CommandLine;
import io.rnic.tools.options.GivenOption;
import io.rnic.tools.options.OptionHelp;
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
    static final String SYNOPSIS = OptionHelp.synopsis("driver", "");
    static final String DETAILS = String.join("\n",
        OptionHelp.help("driver"),
        "A create past a --max-client-* quota fails with ENOMEM naming the flag, counted in 'stat' and shown by",
        "'devinfo -v'. Clients attach with --driver DIR (the tools) or DriverContext.open(DIR) (the library);",
        "'bin/rnic stat --dir DIR' shows its counters live, 'bin/rnic devinfo --dir DIR' its device. One driver per",
        "directory and per interface: a second one, or a tool started without --driver on the interface, is refused.",
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
        for (final GivenOption given : CommandLine.parse("driver", args).optionsOnly())
        {
            switch (given.option())
            {
                case INTERFACE -> iface = Ports.interfaceOf(given.text());
                case PORT_KIND -> portKind = given.text();
                case EAL -> eal = Arrays.asList(given.text().trim().split("\\s+"));
                case IP -> addresses.add(ToolOptions.address(given.text()));
                case PORT_MTU -> portMtu = given.intValue();
                case DIR -> directory = given.path();
                case CLIENT_TIMEOUT_MS -> clientTimeoutMs = given.number();
                case CPU -> cpu = given.intValue();
                case IDLE -> idle = given.text();
                case VLAN -> vlanId = given.intValue();
                case CNP_DSCP -> cnpDscp = given.intValue();
                case CNP_PRIO -> cnpPriority = given.intValue();
                case MAX_CLIENT_QPS -> quotas = quotas.withQps(given.intValue());
                case MAX_CLIENT_CQS -> quotas = quotas.withCqs(given.intValue());
                case MAX_CLIENT_SRQS -> quotas = quotas.withSrqs(given.intValue());
                case MAX_CLIENT_MRS -> quotas = quotas.withMrs(given.intValue());
                case MAX_CLIENT_MR_BYTES -> quotas = quotas.withRegisteredBytes(given.number());
                case MAX_CLIENT_QUEUE_BYTES -> quotas = quotas.withQueueBytes(given.number());
                default -> throw given.notHandled("driver");
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
}
