package io.rnic.cc;

/**
 * The DCQCN notification point of one QP (the receiver): decides which CE-marked packets (ECN = 11) are answered
 * with a CNP to the source QP. The first CE-marked packet is answered at once; after a CNP, CE-marked packets are
 * only counted until {@code cnpIntervalNs} has passed (NVIDIA's {@code min_time_between_cnps}; 50 µs by default).
 * Marked packets suppressed in an interval do not trigger a CNP of their own when it ends: the next marked packet
 * does. Engine thread only; time is passed in; no allocation.
 */
public final class CnpThrottle
{
    private final long cnpIntervalNs;
    private boolean cnpSent;
    private long lastCnpNs;
    private long ceMarkedPackets;
    private long cnpsAllowed;

    /** @param cnpIntervalNs in [0, 10 s]; 0 answers every CE-marked packet. */
    public CnpThrottle(final long cnpIntervalNs)
    {
        if (cnpIntervalNs < 0 || cnpIntervalNs > DcqcnParameters.MAX_PERIOD_NS)
        {
            throw new IllegalArgumentException(DcqcnParameters.CNP_INTERVAL_NS_PARAM_NAME + " must be in [0, " +
                DcqcnParameters.MAX_PERIOD_NS + "], was " + cnpIntervalNs);
        }
        this.cnpIntervalNs = cnpIntervalNs;
    }

    public CnpThrottle(final DcqcnParameters parameters)
    {
        this(parameters.cnpIntervalNs());
    }

    /** A valid CE-marked packet for this QP arrived at {@code nowNs}: true if a CNP is to be sent for it. */
    public boolean shouldSendCnp(final long nowNs)
    {
        ceMarkedPackets++;
        if (cnpSent && nowNs - lastCnpNs < cnpIntervalNs)
        {
            return false;
        }
        cnpSent = true;
        lastCnpNs = nowNs;
        cnpsAllowed++;
        return true;
    }

    /** CE-marked packets seen ({@link #shouldSendCnp} calls). */
    public long ceMarkedPackets()
    {
        return ceMarkedPackets;
    }

    /** CNPs allowed ({@link #shouldSendCnp} calls that returned true). */
    public long cnpsAllowed()
    {
        return cnpsAllowed;
    }

    public long cnpIntervalNs()
    {
        return cnpIntervalNs;
    }

    /** Forgets the last CNP and zeroes the counters (a QP reused for a new connection). */
    public void reset()
    {
        cnpSent = false;
        lastCnpNs = 0;
        ceMarkedPackets = 0;
        cnpsAllowed = 0;
    }
}
