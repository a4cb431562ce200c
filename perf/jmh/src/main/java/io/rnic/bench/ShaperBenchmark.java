package io.rnic.bench;

import io.rnic.cc.DcqcnParameters;
import io.rnic.cc.DcqcnReactionPoint;
import io.rnic.cc.QpCongestion;
import io.rnic.cc.TokenBucketShaper;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Per-packet cost of congestion control on the transmit path, time simulated (no clock read in the measured code):
 * <ul>
 *   <li>{@code shaperCheckAndConsume}: {@link TokenBucketShaper#tryConsume} of one frame, and when refused
 *   {@link TokenBucketShaper#nanosUntilAllowed} as a busy-polling engine would ask. The simulated clock moves
 *   {@code stepNs} per call, so at 10 Gb/s and 1 KB frames (819 ns each) most calls at 100 ns are refusals and at
 *   1000 ns all are sends.</li>
 *   <li>{@code reactionPointBytesAndAdvance}: {@link DcqcnReactionPoint#onBytesSent} of one frame and
 *   {@link DcqcnReactionPoint#advance}, ConnectX defaults, with a CNP every 4096 calls so that the QP stays in
 *   recovery (increase timer, byte counter and alpha decay all active).</li>
 *   <li>{@code qpCongestionPerPacket}: what the engine's requester does per packet with DCQCN on
 *   ({@link QpCongestion#mayTransmit}, and when allowed {@link QpCongestion#onTransmitted}), ConnectX defaults at
 *   10 Gb/s with a CNP every 4096 calls.</li>
 * </ul>
 * Run with {@code -prof gc} to see that neither allocates.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector",
    "--enable-native-access=ALL-UNNAMED" })
public class ShaperBenchmark
{
    private static final int FRAME_BYTES = 1024;
    private static final int CNP_EVERY_CALLS_MASK = 4095;

    /** Simulated time between calls. */
    @Param({ "100", "1000" })
    public long stepNs;

    private TokenBucketShaper shaper;
    private DcqcnReactionPoint reactionPoint;
    private QpCongestion qpCongestion;
    private long qpNowNs;
    private int qpCalls;
    private long shaperNowNs;
    private long reactionPointNowNs;
    private int calls;

    @Setup
    public void setUp()
    {
        shaper = new TokenBucketShaper(10_000_000_000L, 2 * FRAME_BYTES, 0);
        reactionPoint = new DcqcnReactionPoint(DcqcnParameters.connectX());
        reactionPoint.onCnp(0);
        qpCongestion = new QpCongestion(DcqcnParameters.connectX().with("lineRateBitsPerSec", "10000000000"), 0);
        qpCongestion.onCnp(0);
    }

    @Benchmark
    public long qpCongestionPerPacket()
    {
        final long nowNs = qpNowNs += stepNs;
        if ((++qpCalls & CNP_EVERY_CALLS_MASK) == 0)
        {
            qpCongestion.onCnp(nowNs);
        }
        if (qpCongestion.mayTransmit(nowNs))
        {
            qpCongestion.onTransmitted(FRAME_BYTES, nowNs);
            return 1;
        }
        return 0;
    }

    @Benchmark
    public long shaperCheckAndConsume()
    {
        final long nowNs = shaperNowNs += stepNs;
        if (shaper.tryConsume(FRAME_BYTES, nowNs))
        {
            return 0;
        }
        return shaper.nanosUntilAllowed(FRAME_BYTES, nowNs);
    }

    @Benchmark
    public long reactionPointBytesAndAdvance()
    {
        final long nowNs = reactionPointNowNs += stepNs;
        if ((++calls & CNP_EVERY_CALLS_MASK) == 0)
        {
            reactionPoint.onCnp(nowNs);
        }
        reactionPoint.onBytesSent(FRAME_BYTES, nowNs);
        reactionPoint.advance(nowNs);
        return reactionPoint.rateBitsPerSec();
    }
}
