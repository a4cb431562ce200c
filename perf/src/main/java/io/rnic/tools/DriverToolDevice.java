package io.rnic.tools;

import io.rnic.client.ClientConnectionManager;
import io.rnic.client.DriverContext;
import io.rnic.cm.CmService;
import io.rnic.cnc.CncFile;
import io.rnic.cnc.DriverProcess;
import io.rnic.datapath.affinity.ThreadAffinity;
import io.rnic.datapath.agent.IdleStrategies;
import io.rnic.device.RnicContext;
import io.rnic.status.CounterTypes;
import io.rnic.transport.RnicEngine;
import io.rnic.transport.TransportCounter;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.DynamicCompositeAgent;
import org.agrona.concurrent.status.CountersReader;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A tool as a client of an {@code rnic driver}: the verbs go through {@link DriverContext}, and since the engine runs
 * in the driver's process, the tool's applications run on one thread of the tool's own (an {@link AgentRunner} over
 * a {@link DynamicCompositeAgent}, idling by {@code backoff} unless {@code --idle} says otherwise, pinned with
 * {@code --cpu}). The counters are the driver's, read from its CnC file as {@code bin/rnic stat} reads them: they
 * count every client's traffic, not only this tool's.
 */
public final class DriverToolDevice implements ToolDevice
{
    /** The idle strategy of the applications' thread when {@code --idle} is not given: it shares cores with others. */
    public static final String IDLE_DEFAULT = "backoff";

    private final Path directory;
    private final DriverContext context;
    private final CncFile cnc;
    private final CountersReader counters;
    private final DynamicCompositeAgent applications = new DynamicCompositeAgent("rnic-tool-applications");
    private final AgentRunner runner;
    private volatile Throwable applicationError;

    private DriverToolDevice(final Path directory, final DriverContext context, final CncFile cnc,
        final String idle, final int cpu)
    {
        this.directory = directory;
        this.context = context;
        this.cnc = cnc;
        this.counters = new CountersReader(cnc.countersMetadataBuffer(), cnc.countersValuesBuffer(),
            StandardCharsets.US_ASCII);
        this.runner = new AgentRunner(IdleStrategies.parse(idle != null ? idle : IDLE_DEFAULT),
            error -> applicationError = error, null, applications);
        AgentRunner.startOnThread(runner, task -> new Thread(() ->
        {
            if (cpu >= 0)
            {
                ThreadAffinity.pinCurrentThread(cpu);
            }
            task.run();
        }, "rnic-tool-applications"));
    }

    /**
     * Attaches to the driver serving {@code directory}; {@code idle} (null: {@link #IDLE_DEFAULT}) and {@code cpu}
     * (-1: any) are those of the applications' thread.
     *
     * @throws io.rnic.cnc.CncException with one line naming the fix when no driver serves the directory.
     */
    public static DriverToolDevice open(final Path directory, final String idle, final int cpu)
    {
        final DriverContext context = DriverContext.open(directory);
        CncFile cnc = null;
        try
        {
            cnc = CncFile.open(directory);
            return new DriverToolDevice(directory, context, cnc, idle, cpu);
        }
        catch (final RuntimeException ex)
        {
            if (cnc != null)
            {
                cnc.close();
            }
            context.close();
            throw ex;
        }
    }

    /** The driver's connection manager; it resolves peers itself, waiting up to its own limit (10 s). */
    public CmService openConnectionManager(final int gidIndex, final Duration resolveTimeout, final int listenPort,
        final int typeOfService)
    {
        final ClientConnectionManager cm = context.openConnectionManager();
        if (typeOfService >= 0)
        {
            cm.typeOfService(typeOfService);
        }
        if (listenPort >= 0)
        {
            try
            {
                cm.listen(listenPort);
            }
            catch (final RuntimeException ex)
            {
                cm.close();
                throw ex;
            }
        }
        return cm;
    }

    public RnicContext context()
    {
        return context;
    }

    public String name()
    {
        return "driver " + directory;
    }

    public void addApplication(final Agent application)
    {
        while (!applications.tryAdd(application))
        {
            LockSupport.parkNanos(100_000L); // another add or remove is still on its way to the thread
        }
        while (!applications.hasAddAgentCompleted())
        {
            LockSupport.parkNanos(100_000L);
        }
    }

    public void removeApplication(final Agent application)
    {
        while (!applications.tryRemove(application))
        {
            LockSupport.parkNanos(100_000L);
        }
        while (!applications.hasRemoveAgentCompleted() && !runner.isClosed())
        {
            LockSupport.parkNanos(100_000L);
        }
    }

    /** Every client's: a tool waiting for the link to fall quiet waits longer while other clients run. */
    public long packetsReceived()
    {
        final String suffix = ": " + TransportCounter.PACKETS_RECEIVED.label();
        final long[] sum = new long[1];
        counters.forEach((id, typeId, key, label) ->
        {
            if (typeId == CounterTypes.TRANSPORT && label.endsWith(suffix))
            {
                sum[0] += counters.getCounterValue(id);
            }
        });
        return sum[0];
    }

    /**
     * The driver's counters in the embedded endpoint's layout: the transport's summed over the engines (those not
     * zero), then the port's, the frames not for rnic, the invalid ones and neighbour resolution.
     */
    public String countersReport()
    {
        final Map<String, Long> sums = new LinkedHashMap<>();
        counters.forEach((id, typeId, key, label) ->
        {
            final int colon = label.indexOf(": ");
            final String name = colon < 0 ? label : label.substring(colon + 2);
            final String line = switch (typeId)
            {
                case CounterTypes.TRANSPORT -> name;
                case CounterTypes.PORT -> "port " + name;
                case CounterTypes.INBOUND -> "accepted".equals(name) ? null : "invalid RoCEv2 frames dropped";
                case CounterTypes.ENGINE_AGENT -> "frames not for rnic".equals(name) ?
                    "frames not for rnic (kernel traffic)" : "engine stalls over 10 ms".equals(name) ? name : null;
                case CounterTypes.NEIGHBOUR -> name.endsWith(" sent") ? "neighbour " + name : null;
                default -> null;
            };
            if (line != null)
            {
                sums.merge(typeId + line, counters.getCounterValue(id), Long::sum);
            }
        });
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < TransportCounter.count(); i++)
        {
            final long value = sums.getOrDefault(CounterTypes.TRANSPORT + TransportCounter.get(i).label(), 0L);
            if (value != 0)
            {
                text.append(String.format("  %-36s %,d%n", TransportCounter.get(i).label(), value));
            }
        }
        for (final String line : new String[]{ "port frames received", "port frames transmitted",
            "port receive drops", "port receive drops (frame too long)", "port transmit drops" })
        {
            text.append(String.format("  %-36s %,d%n", line, sums.getOrDefault(CounterTypes.PORT + line, 0L)));
        }
        final String[][] rest = {
            { String.valueOf(CounterTypes.ENGINE_AGENT), "frames not for rnic (kernel traffic)" },
            { String.valueOf(CounterTypes.INBOUND), "invalid RoCEv2 frames dropped" },
            { String.valueOf(CounterTypes.NEIGHBOUR), "neighbour requests sent" },
            { String.valueOf(CounterTypes.NEIGHBOUR), "neighbour replies sent" } };
        for (final String[] line : rest)
        {
            text.append(String.format("  %-36s %,d%n", line[1], sums.getOrDefault(line[0] + line[1], 0L)));
        }
        final long stalls = sums.getOrDefault(CounterTypes.ENGINE_AGENT + "engine stalls over 10 ms", 0L);
        if (stalls > 0) // only when it happened, as the embedded report: it explains retransmissions on a clean link
        {
            text.append(String.format("  %-36s %,d%n", "engine stalls over 10 ms", stalls));
        }
        text.append(String.format("  %-36s %s%n", "counted by", "the driver (every client's traffic)"));
        return text.toString();
    }

    /**
     * The applications' thread failed, or the driver stopped (its CnC file gone), died (its lock free) or hangs (its
     * heartbeat stale).
     */
    public String failure()
    {
        final Throwable error = applicationError;
        if (error != null)
        {
            return "the tool's application thread failed: " + error;
        }
        if (!Files.exists(directory.resolve(CncFile.FILE_NAME)))
        {
            return "the rnic driver at " + directory + " has stopped";
        }
        final String notRunning = DriverProcess.notRunning(directory, cnc.driverPid());
        if (notRunning != null)
        {
            return notRunning;
        }
        final long ageMs = System.currentTimeMillis() - cnc.heartbeatMs();
        if (TimeUnit.MILLISECONDS.toNanos(ageMs) > cnc.clientTimeoutNs())
        {
            return "the rnic driver at " + directory + " stopped beating " + ageMs + " ms ago (pid " +
                cnc.driverPid() + ")";
        }
        return null;
    }

    public RnicEngine[] engines()
    {
        return new RnicEngine[0];
    }

    public void stopPolling()
    {
        // the driver polls the port, and goes on doing so for its other clients
    }

    /** Stops the applications' thread, detaches (the driver destroys what is left), then frees the memory. */
    public void close()
    {
        try
        {
            runner.close();
        }
        finally
        {
            try
            {
                context.close();
            }
            finally
            {
                cnc.close();
            }
        }
    }
}
