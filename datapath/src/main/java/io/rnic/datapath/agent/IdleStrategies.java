package io.rnic.datapath.agent;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.util.concurrent.TimeUnit;

/**
 * The idle strategies an engine thread can use, by the names the command line takes: {@code spin} (the default:
 * lowest latency, one core fully used), {@code noop}, {@code yield}, {@code backoff} (spin, then yield, then park
 * up to 1 ms: for shared machines) and {@code sleep[:MICROS]}.
 */
public final class IdleStrategies
{
    public static final String NAMES = "spin, noop, yield, backoff, sleep[:MICROS]";

    private IdleStrategies()
    {
    }

    public static IdleStrategy parse(final String name)
    {
        if (name.startsWith("sleep"))
        {
            long micros = 100;
            if (name.startsWith("sleep:"))
            {
                try
                {
                    micros = Long.parseLong(name.substring("sleep:".length()));
                }
                catch (final NumberFormatException ex)
                {
                    micros = -1;
                }
                if (micros < 1)
                {
                    throw new IllegalArgumentException("idle strategy '" + name + "': MICROS must be a positive integer");
                }
            }
            else if (!name.equals("sleep"))
            {
                throw unknown(name);
            }
            return new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(micros));
        }
        return switch (name)
        {
            case "spin" -> new BusySpinIdleStrategy();
            case "noop" -> new NoOpIdleStrategy();
            case "yield" -> new YieldingIdleStrategy();
            case "backoff" -> new BackoffIdleStrategy(100, 10, TimeUnit.MICROSECONDS.toNanos(1),
                TimeUnit.MILLISECONDS.toNanos(1));
            default -> throw unknown(name);
        };
    }

    private static IllegalArgumentException unknown(final String name)
    {
        return new IllegalArgumentException("unknown idle strategy '" + name + "' (one of " + NAMES + ")");
    }
}
