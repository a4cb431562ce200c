package io.rnic.simulation;

import io.rnic.cc.DcqcnParameters;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.transport.TransportCounter;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;

import java.lang.foreign.Arena;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;

/**
 * Long RC flows into one bottleneck ({@link DumbbellFabric}): flow i starts at {@code i·flowStartSpacingNs} and
 * keeps RDMA WRITEs outstanding to the end. Every {@code sampleNs} it records each flow's throughput out of the
 * bottleneck, each sender QP's DCQCN rate and the bottleneck's deepest queue; at the end: drops, marks, CNPs,
 * Jain's fairness index over the second half of the time all flows run, and the convergence time.
 */
public final class CongestionScenario
{
    /** What to run; public fields with the defaults of the recorded runs. */
    public static final class Config
    {
        public int flows = 2;
        public long lineRateBitsPerSec = 10_000_000_000L;
        /** A shallow switch port: 300 KB, the DCQCN paper's RED marking (5 KB .. 200 KB, up to 1 %). */
        public BottleneckQueue.Settings bottleneck = new BottleneckQueue.Settings()
            .rateBitsPerSec(10_000_000_000L).capacityBytes(300 * 1024).marking(5 * 1024, 200 * 1024, 0.01)
            .propagationNs(1_000);
        /**
         * DCQCN on every node with these parameters (line rate set to the ports'), or null: no congestion control.
         * The paper's set by default: this is the paper's experiment.
         */
        public DcqcnParameters dcqcn = DcqcnParameters.paper();
        public long flowStartSpacingNs = 5_000_000;
        public long durationNs = 40_000_000;
        public long sampleNs = 100_000;
        /** Jain's index must stay at or above this from the convergence time on. */
        public double fairJainIndex = 0.95;
        /** Convergence is judged on throughput averaged over this many samples. */
        public int convergenceWindowSamples = 10;
        public PathMtu mtu = PathMtu.MTU_1024;
        public int messageBytes = 65536;
        public int outstandingMessages = 16;
        public long seed = 1;
        /** Told the simulated time run so far, every {@link #progressIntervalNs} of wall time; null: nobody. */
        public LongConsumer progress;
        public long progressIntervalNs = 1_000_000_000L;

        public String describe()
        {
            return flows + " RC flows at " + lineRateBitsPerSec / 1e9 + " Gb/s, one starting every " +
                flowStartSpacingNs / 1e6 + " ms, " + durationNs / 1e6 + " ms in all; bottleneck " + bottleneck +
                "; MTU " + mtu.bytes() + "; congestion control " + (dcqcn == null ? "none" : "DCQCN");
        }
    }

    /** Time series and figures of one run. */
    public static final class Result
    {
        public final Config config;
        /** The parameters the run used (line rate set to the ports'), or null: no congestion control. */
        public final DcqcnParameters dcqcn;
        public final long[] timeNs;
        /** [flow][sample]: bits/s of the flow's frames leaving the bottleneck in the sample period. */
        public final long[][] throughputBitsPerSec;
        /** [flow][sample]: the sender QP's DCQCN rate Rc, -1 without congestion control. */
        public final long[][] rateBitsPerSec;
        /** [sample]: the deepest the bottleneck queue was in the sample period. */
        public final long[] maxQueueBytes;
        public int samples;
        public long drops;
        public long marked;
        public long cnpsSent;
        public long cnpsHandled;
        public long retransmittedPackets;
        public long maxQueueBytesOverall;
        /** Jain's index of the flows' mean throughput over the second half of the time all flows run. */
        public double jainIndex;
        /** Mean throughput per flow over that window, bits/s. */
        public double[] meanThroughputBitsPerSec;
        /** From the last flow's start until Jain's index stays at or above the threshold; -1: never. */
        public long convergenceNs = -1;
        public boolean qpInError;

        Result(final Config config, final DcqcnParameters dcqcn)
        {
            this.config = config;
            this.dcqcn = dcqcn;
            final int capacity = (int)(config.durationNs / config.sampleNs) + 1;
            timeNs = new long[capacity];
            throughputBitsPerSec = new long[config.flows][capacity];
            rateBitsPerSec = new long[config.flows][capacity];
            maxQueueBytes = new long[capacity];
        }

        public String summary()
        {
            final StringBuilder sb = new StringBuilder();
            sb.append(String.format("congestion control %s: drops %d, CE marks %d, CNPs sent %d / handled %d, " +
                "retransmitted %d packets, max queue %.1f KB of %d KB, Jain's index %.4f, convergence %s%s",
                dcqcn == null ? "none" : "DCQCN", drops, marked, cnpsSent, cnpsHandled, retransmittedPackets,
                maxQueueBytesOverall / 1024.0, config.bottleneck.capacityBytes / 1024, jainIndex,
                convergenceNs < 0 ? "never" : String.format("%.2f ms", convergenceNs / 1e6),
                qpInError ? ", a QP went to the error state" : ""));
            sb.append("; mean Gb/s per flow:");
            for (final double mean : meanThroughputBitsPerSec)
            {
                sb.append(String.format(" %.3f", mean / 1e9));
            }
            return sb.toString();
        }

        /** time_ms, then per flow throughput and rate in Gb/s, then the queue in KB. */
        public String csv()
        {
            final StringBuilder sb = new StringBuilder("time_ms");
            for (int f = 0; f < config.flows; f++)
            {
                sb.append(",flow").append(f).append("_gbps,flow").append(f).append("_rate_gbps");
            }
            sb.append(",queue_kb\n");
            for (int s = 0; s < samples; s++)
            {
                sb.append(String.format("%.3f", (timeNs[s]) / 1e6));
                for (int f = 0; f < config.flows; f++)
                {
                    sb.append(String.format(",%.4f,%.4f", throughputBitsPerSec[f][s] / 1e9,
                        rateBitsPerSec[f][s] < 0 ? Double.NaN : rateBitsPerSec[f][s] / 1e9));
                }
                sb.append(String.format(",%.2f%n", maxQueueBytes[s] / 1024.0));
            }
            return sb.toString();
        }
    }

    private static final class Flow
    {
        QueuePair requester;
        QueuePair responder;
        CompletionQueue sendCq;
        MemoryRegion local;
        MemoryRegion remote;
        final WorkCompletion[] completions = new WorkCompletion[64];
        int outstanding;
        long startNs;
    }

    private CongestionScenario()
    {
    }

    public static Result run(final Config config)
    {
        final DumbbellFabric fabric = new DumbbellFabric(config.flows, config.lineRateBitsPerSec, config.bottleneck,
            config.seed);
        final DcqcnParameters dcqcn = config.dcqcn == null ? null : config.dcqcn.with(
            DcqcnParameters.LINE_RATE_BITS_PER_SEC_PARAM_NAME, Long.toString(config.lineRateBitsPerSec));
        fabric.receiver().congestionControl(dcqcn);
        for (int i = 0; i < config.flows; i++)
        {
            fabric.sender(i).congestionControl(dcqcn);
        }
        final Result result = new Result(config, dcqcn);
        try (Arena arena = Arena.ofConfined())
        {
            final long t0 = fabric.clock().nanoTime();
            final Flow[] flows = new Flow[config.flows];
            for (int i = 0; i < flows.length; i++)
            {
                flows[i] = connect(fabric, i, arena, config);
                flows[i].startNs = t0 + i * config.flowStartSpacingNs;
            }
            drive(fabric, flows, config, result, t0);
            for (final Flow flow : flows)
            {
                result.qpInError |= flow.requester.state() == QpState.ERR;
            }
        }
        summarize(fabric, config, result);
        return result;
    }

    private static void drive(
        final DumbbellFabric fabric, final Flow[] flows, final Config config, final Result result, final long t0)
    {
        final SendWorkRequest wr = new SendWorkRequest();
        final long[] deliveredAtLastSample = new long[flows.length];
        long nextSampleNs = t0 + config.sampleNs;
        final long endNs = t0 + config.durationNs;
        long nextProgressNs = System.nanoTime() + config.progressIntervalNs;
        while (fabric.clock().nanoTime() < endNs)
        {
            final long nowNs = fabric.clock().nanoTime();
            for (final Flow flow : flows)
            {
                if (nowNs >= flow.startNs)
                {
                    keepBusy(flow, config, wr);
                }
            }
            fabric.step();
            if (fabric.clock().nanoTime() >= nextSampleNs && result.samples < result.timeNs.length)
            {
                final int s = result.samples++;
                result.timeNs[s] = nextSampleNs - t0;
                for (int f = 0; f < flows.length; f++)
                {
                    final long delivered = fabric.bytesDelivered(f);
                    result.throughputBitsPerSec[f][s] = (delivered - deliveredAtLastSample[f]) * 8_000_000_000L /
                        config.sampleNs;
                    deliveredAtLastSample[f] = delivered;
                    result.rateBitsPerSec[f][s] = flows[f].requester.rateBitsPerSec();
                }
                result.maxQueueBytes[s] = fabric.bottleneck().takeMaxQueuedBytes();
                nextSampleNs += config.sampleNs;
                if (config.progress != null && System.nanoTime() >= nextProgressNs)
                {
                    config.progress.accept(nextSampleNs - config.sampleNs - t0);
                    nextProgressNs = System.nanoTime() + config.progressIntervalNs;
                }
            }
        }
    }

    private static void keepBusy(final Flow flow, final Config config, final SendWorkRequest wr)
    {
        flow.outstanding -= flow.sendCq.poll(flow.completions, flow.completions.length);
        while (flow.outstanding < config.outstandingMessages && flow.requester.state() == QpState.RTS)
        {
            wr.reset();
            wr.opcode = WrOpcode.RDMA_WRITE;
            wr.sgl.add(flow.local.address(), config.messageBytes, flow.local.lKey());
            wr.remoteAddress = flow.remote.address();
            wr.rKey = flow.remote.rKey();
            if (flow.requester.postSend(wr) != QueuePair.POST_OK)
            {
                break;
            }
            flow.outstanding++;
        }
    }

    private static void summarize(final DumbbellFabric fabric, final Config config, final Result result)
    {
        final BottleneckQueue bottleneck = fabric.bottleneck();
        result.drops = bottleneck.framesDropped();
        result.marked = bottleneck.framesMarked();
        result.cnpsSent = fabric.receiver().engine().counters().get(TransportCounter.CNP_SENT);
        for (int i = 0; i < config.flows; i++)
        {
            final var counters = fabric.sender(i).engine().counters();
            result.cnpsHandled += counters.get(TransportCounter.CNP_RECEIVED);
            result.retransmittedPackets += counters.get(TransportCounter.RETRANSMITTED_PACKETS);
        }
        for (int s = 0; s < result.samples; s++)
        {
            result.maxQueueBytesOverall = Math.max(result.maxQueueBytesOverall, result.maxQueueBytes[s]);
        }
        final long lastStartNs = (config.flows - 1) * config.flowStartSpacingNs;
        final int allRunning = (int)(lastStartNs / config.sampleNs);
        final int from = allRunning + (result.samples - allRunning) / 2;
        result.meanThroughputBitsPerSec = new double[config.flows];
        for (int f = 0; f < config.flows; f++)
        {
            double sum = 0;
            for (int s = from; s < result.samples; s++)
            {
                sum += result.throughputBitsPerSec[f][s];
            }
            result.meanThroughputBitsPerSec[f] = sum / Math.max(1, result.samples - from);
        }
        result.jainIndex = jain(result.meanThroughputBitsPerSec);

        // converged at the first sample from which every later window of throughput is fair
        final int window = config.convergenceWindowSamples;
        final double[] mean = new double[config.flows];
        int convergedFrom = -1;
        for (int s = allRunning + window; s <= result.samples; s++)
        {
            for (int f = 0; f < config.flows; f++)
            {
                double sum = 0;
                for (int k = s - window; k < s; k++)
                {
                    sum += result.throughputBitsPerSec[f][k];
                }
                mean[f] = sum / window;
            }
            if (jain(mean) >= config.fairJainIndex)
            {
                if (convergedFrom < 0)
                {
                    convergedFrom = s;
                }
            }
            else
            {
                convergedFrom = -1;
            }
        }
        if (convergedFrom >= 0)
        {
            result.convergenceNs = result.timeNs[convergedFrom - 1] - lastStartNs;
        }
    }

    /** Jain's fairness index: (Σx)² / (n·Σx²); 1 when all are equal, 1/n when one takes everything. */
    public static double jain(final double[] values)
    {
        double sum = 0;
        double squares = 0;
        for (final double x : values)
        {
            sum += x;
            squares += x * x;
        }
        return squares == 0 ? 0 : sum * sum / (values.length * squares);
    }

    private static Flow connect(final DumbbellFabric fabric, final int index, final Arena arena, final Config config)
    {
        final Flow flow = new Flow();
        for (int i = 0; i < flow.completions.length; i++)
        {
            flow.completions[i] = new WorkCompletion();
        }
        final RnicDevice sender = fabric.sender(index);
        final RnicDevice receiver = fabric.receiver();
        final ProtectionDomain senderPd = sender.allocPd();
        final ProtectionDomain receiverPd = receiver.allocPd();
        flow.sendCq = sender.createCq(4 * config.outstandingMessages);
        flow.requester = sender.createQp(new QpInitAttributes().pd(senderPd)
            .cqs(flow.sendCq, sender.createCq(16)).capacity(2 * config.outstandingMessages, 16));
        flow.responder = receiver.createQp(new QpInitAttributes().pd(receiverPd)
            .cqs(receiver.createCq(16), receiver.createCq(16)).capacity(16, 16));
        flow.local = sender.registerMemoryRegion(senderPd, arena.allocate(config.messageBytes, 4096), AccessFlags.ALL);
        flow.remote = receiver.registerMemoryRegion(receiverPd, arena.allocate(config.messageBytes, 4096),
            AccessFlags.ALL);
        // first PSNs at random as the tools draw them, but from the seed: a run is reproduced by its seed
        final SplittableRandom psns = new SplittableRandom(config.seed * 31 + index);
        final int senderPsn = psns.nextInt(1 << 24);
        final int receiverPsn = psns.nextInt(1 << 24);
        // ~4 ms ACK timeout (10): a sequence NAK, not the timer, recovers a drop here
        SimulatedRcPath.bringUp(flow.requester, flow.responder.qpn(), DumbbellFabric.RECEIVER_IP,
            DumbbellFabric.RECEIVER_MAC, senderPsn, receiverPsn, config.mtu, 10, 7, 7);
        SimulatedRcPath.bringUp(flow.responder, flow.requester.qpn(), DumbbellFabric.senderIp(index),
            DumbbellFabric.senderMac(index), receiverPsn, senderPsn, config.mtu, 10, 7, 7);
        return flow;
    }
}
