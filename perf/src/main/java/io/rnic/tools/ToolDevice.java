package io.rnic.tools;

import io.rnic.cm.CmService;
import io.rnic.device.RnicContext;
import io.rnic.transport.RnicEngine;
import org.agrona.concurrent.Agent;

import java.time.Duration;

/**
 * What a tool runs on: the verbs of a port ({@link RnicContext}) and what a tool needs beyond them, the same whether
 * the engine is embedded in the tool ({@link EmbeddedToolDevice}) or runs in an {@code rnic driver} the tool is a
 * client of ({@link DriverToolDevice}). It decides where the tool's applications run, which counters the report shows
 * and how the tool learns that the engine failed; closing it frees the memory from {@link RnicContext#allocate} only
 * once no engine can touch it any more.
 */
public interface ToolDevice extends AutoCloseable
{
    RnicContext context();

    /** What the report names the device by: the port (embedded) or the driver's directory. */
    String name();

    /** Runs {@code application}'s duty cycle until {@link #removeApplication}: in the engine's or a thread of ours. */
    void addApplication(Agent application);

    /** Stops running {@code application}; once it returns, its {@code doWork} is not running and will not run again. */
    void removeApplication(Agent application);

    /**
     * The RDMA CM for the tool ({@code -R}, rping): embedded, a connection manager on the endpoint's QP1 run in the
     * engine's duty cycle, resolving peers from GID {@code gidIndex} for up to {@code resolveTimeout}; through a
     * driver, the driver's. With {@code listenPort} (-1: none) it listens there before any REQ can meet it (as
     * {@code rdma_listen} before the client may connect); with {@code typeOfService} (-1: the default) its connections'
     * type of service ({@code rdma_set_option(RDMA_OPTION_ID_TOS)}). Closing it ends what it holds.
     */
    CmService openConnectionManager(int gidIndex, Duration resolveTimeout, int listenPort, int typeOfService);

    /** RoCEv2 packets the engines took in (rxe's {@code rcvd_pkts}): a tool polls it to see a link fall quiet. */
    long packetsReceived();

    /** The counters as {@code name value} lines, in the embedded endpoint's layout. */
    String countersReport();

    /** The ports' receive queues, a line each, for {@code --debug}'s failure dump; empty through a driver. */
    default String describeReceive()
    {
        return "";
    }

    /** Why the engine (or the driver) can no longer serve this tool, or null while it can. */
    String failure();

    /** The engines, for the congestion report; none through a driver (its DCQCN state is in its counters). */
    RnicEngine[] engines();

    /** Stops polling the port before the tool leaves (a DPDK memif peer must stop first); a no-op where not needed. */
    void stopPolling();

    /** Destroys what the tool left, stops using the port, then frees the memory. */
    void close();
}
