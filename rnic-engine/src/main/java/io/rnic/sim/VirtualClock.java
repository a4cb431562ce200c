package io.rnic.sim;

import org.agrona.concurrent.NanoClock;

/** A clock that moves only when told to: every timer of the engine becomes testable without sleeping. */
public final class VirtualClock implements NanoClock
{
    private long nowNs;

    public VirtualClock(final long startNs)
    {
        this.nowNs = startNs;
    }

    public long nanoTime()
    {
        return nowNs;
    }

    public void advanceNs(final long deltaNs)
    {
        nowNs += deltaNs;
    }

    public void setNs(final long timeNs)
    {
        if (timeNs > nowNs)
        {
            nowNs = timeNs;
        }
    }
}
