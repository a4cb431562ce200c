package io.rnic.tools;

import io.rnic.cm.CmAgent;
import io.rnic.cm.CmService;
import io.rnic.cm.ConnectionManager;
import io.rnic.datapath.agent.EngineAgent;
import io.rnic.datapath.dpdk.DpdkPort;
import io.rnic.datapath.endpoint.EmbeddedContext;
import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.device.RnicContext;
import io.rnic.transport.RnicEngine;
import io.rnic.transport.TransportCounter;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.SystemNanoClock;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * A tool's own endpoint on its port: applications run in the engine thread's duty cycle (no second spinning thread),
 * the counters are the endpoint's, and the memory the tool allocates is freed after the engine has stopped (a peer
 * may keep sending, e.g. duplicate READs after our last response was lost).
 */
public final class EmbeddedToolDevice implements ToolDevice
{
    /** How long a DPDK endpoint keeps its device after it stopped polling, for the peer to stop polling too. */
    private static final long LINGER_MS = 500;

    private final EmbeddedContext context;
    private final Endpoint endpoint;

    private EmbeddedToolDevice(final Endpoint endpoint)
    {
        this.context = EmbeddedContext.of(endpoint);
        this.endpoint = endpoint;
    }

    /** The device of a started endpoint; it owns the endpoint from now on and closes it. */
    public static EmbeddedToolDevice of(final Endpoint endpoint)
    {
        return new EmbeddedToolDevice(endpoint);
    }

    /**
     * Waits until every engine thread has started (pinned, its port started), so that one that cannot start stops
     * the tool at once with its reason, not a run that waits for a peer with no engine and fails later on something
     * else (an ARP resolution nobody answers).
     *
     * @throws IOException with the engine thread's error, in one line.
     */
    public void awaitEngines(final long timeoutMs) throws IOException
    {
        final long deadlineNs = System.nanoTime() + timeoutMs * 1_000_000L;
        while (true)
        {
            boolean started = true;
            for (final EngineAgent agent : endpoint.agents())
            {
                started &= agent.thread() != null;
            }
            if (started)
            {
                return; // what fails from now on, failure() tells
            }
            if (endpoint.engineErrors() > 0)
            {
                final Throwable error = endpoint.lastEngineError();
                throw new IOException("the engine thread could not start: " +
                    (error != null && error.getMessage() != null ? error.getMessage() : String.valueOf(error)));
            }
            if (System.nanoTime() > deadlineNs)
            {
                throw new IOException("the engine thread did not start within " + timeoutMs + " ms");
            }
            LockSupport.parkNanos(100_000L);
        }
    }

    public Endpoint endpoint()
    {
        return endpoint;
    }

    public RnicContext context()
    {
        return context;
    }

    public String name()
    {
        return endpoint.port().name();
    }

    public CmService openConnectionManager(final int gidIndex, final Duration resolveTimeout, final int listenPort,
        final int typeOfService)
    {
        // the manager runs on the engine thread, which must not wait for a neighbour: only the caller's thread does
        final ConnectionManager manager = new ConnectionManager(endpoint.device(), endpoint.localPort(), gidIndex,
            (high, low) -> endpoint.resolveMac(InterfaceAddresses.gidAddress(high, low), gidIndex, Duration.ZERO),
            System.nanoTime());
        final CmAgent agent = new CmAgent(manager, SystemNanoClock.INSTANCE,
            (high, low) -> endpoint.resolveMac(InterfaceAddresses.gidAddress(high, low), gidIndex, resolveTimeout));
        if (typeOfService >= 0)
        {
            manager.typeOfService(typeOfService); // rdma_set_option(RDMA_OPTION_ID_TOS)
        }
        if (listenPort >= 0)
        {
            // listening from the engine thread, once the agent runs, left a window in which a quick client's REQ met
            // QP1 without a listener and was rejected (reason 8)
            manager.listen(listenPort);
        }
        endpoint.addApplication(agent); // from here on the manager is the engine thread's
        return agent.beforeClose(() -> endpoint.removeApplication(agent));
    }

    public void addApplication(final Agent application)
    {
        endpoint.addApplication(application);
    }

    public void removeApplication(final Agent application)
    {
        endpoint.removeApplication(application);
    }

    public long packetsReceived()
    {
        return endpoint.transportCounter(TransportCounter.PACKETS_RECEIVED);
    }

    public String countersReport()
    {
        return endpoint.countersReport();
    }

    @Override
    public String describeReceive()
    {
        return endpoint.describeReceive();
    }

    public String failure()
    {
        return endpoint.engineErrors() > 0 ? "the engine thread failed: " + endpoint.lastEngineError() : null;
    }

    public RnicEngine[] engines()
    {
        return endpoint.device().engines();
    }

    /**
     * A memif peer that disconnects while this side still polls can crash DPDK's memif driver (it unmaps the rings
     * under a running burst): stop polling now, and give the peer time to stop too before closing the device.
     */
    public void stopPolling()
    {
        if (endpoint.port() instanceof DpdkPort)
        {
            endpoint.stopEngines();
            try
            {
                Thread.sleep(LINGER_MS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Stops the endpoint, then frees the memory. */
    public void close()
    {
        context.close();
    }
}
