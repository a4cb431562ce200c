package io.rnic.tools.perftest;

import io.rnic.tools.LocalQp;
import io.rnic.tools.ToolKind;
import io.rnic.verbs.WrOpcode;

import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * Which state machine runs a tool in the engine's duty cycle, by operation, latency or bandwidth, and side: the
 * client drives every test; the server runs one only where it takes part (a SEND's receives, a WRITE latency's
 * answer) and none where the peer's READs, WRITEs and atomics complete without it.
 */
final class ToolApplications
{
    /** Tests: told of every application made, to look at what it did once the run is over; null otherwise. */
    static volatile Consumer<ToolApplication> createdForTests;

    private ToolApplications()
    {
    }

    /**
     * The application of this side, its receives posted; null where the server only serves. With {@code -e} it polls
     * on completion events; a bandwidth client takes {@code -Q}, {@code -l} and {@code --rate_limit}.
     *
     * @param duration -D's or --run_infinitely's phases, or null: the run counts iterations.
     */
    static ToolApplication create(final ToolOptions options, final LocalQp[] qps, final MemorySegment expected,
        final LatencyLog recorder, final DurationPhases duration)
    {
        final ToolApplication application = forOperation(options, qps, expected, recorder, duration);
        final PerftestFlags flags = options.flags;
        if (application instanceof Bandwidth bandwidth)
        {
            bandwidth.shape(flags.cqMod, flags.postList, flags.rateLimitBitsPerSec);
        }
        if (application != null && flags.events)
        {
            application.useEvents(qps);
        }
        final Consumer<ToolApplication> listener = createdForTests;
        if (listener != null && application != null)
        {
            listener.accept(application);
        }
        return application;
    }

    private static ToolApplication forOperation(final ToolOptions options, final LocalQp[] qps,
        final MemorySegment expected, final LatencyLog recorder, final DurationPhases duration)
    {
        // -b: the server runs the test too (perftest's duplex)
        final boolean client = !options.isServer() || options.flags.bidirectional;
        final long total = duration != null ? Long.MAX_VALUE : options.iterations + options.warmup;
        final int atomic = options.atomicCompareSwap ? WrOpcode.ATOMIC_CMP_AND_SWP : WrOpcode.ATOMIC_FETCH_AND_ADD;
        final ToolKind kind = options.kind;
        switch (kind.operation())
        {
            case WRITE ->
            {
                if (kind.isLatency())
                {
                    return new WriteLatency(qps[0], total, options.warmup, client, options.verify, recorder,
                        duration);
                }
                return client ? new Bandwidth(qps, WrOpcode.RDMA_WRITE, total, options.warmup, options.txDepth,
                    options.verify, null, duration) : null;
            }
            case READ ->
            {
                if (!client)
                {
                    return null;
                }
                return kind.isLatency() ?
                    new ReadLatency(qps[0], WrOpcode.RDMA_READ, total, options.warmup, options.verify, expected,
                        recorder, duration) :
                    new Bandwidth(qps, WrOpcode.RDMA_READ, total, options.warmup, options.txDepth, options.verify,
                        expected, duration);
            }
            case ATOMIC ->
            {
                if (!client)
                {
                    return null;
                }
                return kind.isLatency() ?
                    new ReadLatency(qps[0], atomic, total, options.warmup, options.verify, null, recorder,
                        duration) :
                    new Bandwidth(qps, atomic, total, options.warmup, options.txDepth, false, null, duration);
            }
            case SEND ->
            {
                if (kind.isLatency())
                {
                    final SendLatency send = new SendLatency(qps[0], total, options.warmup, client, options.verify,
                        options.immediate, recorder, duration);
                    send.postReceives((int)Math.min(options.rxDepth, total));
                    return send;
                }
                if (client)
                {
                    return new Bandwidth(qps, options.immediate ? WrOpcode.SEND_WITH_IMM : WrOpcode.SEND, total,
                        options.warmup, options.txDepth, options.verify, null, duration);
                }
                final SendReceiver receiver = new SendReceiver(qps, total, options.warmup, options.rxDepth,
                    options.verify, options.immediate, expected, duration);
                receiver.postReceives();
                return receiver;
            }
            default -> throw new IllegalStateException(kind.toString());
        }
    }
}
