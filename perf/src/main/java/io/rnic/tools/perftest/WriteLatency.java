package io.rnic.tools.perftest;

import io.rnic.tools.LocalQp;
import io.rnic.verbs.WrOpcode;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code ib_write_lat}: the two sides RDMA WRITE to each other in turn. Each watches the last byte of its receive
 * slot (a write's last byte lands last: RC places in PSN order), which carries perftest's counter
 * ({@link Patterns#marker}). As in perftest 4.5 ({@code run_iter_lat_write}), the <em>server</em> writes first and
 * the client answers each write with its own, so either side may be the real tool. Both time from posting a write
 * to seeing the next one arrive; the client reports. With {@code --verify} every byte of every message is checked
 * on arrival. With {@code -D} each side counts the round trips that end in its measurement; the client ends the
 * run with a last answer ({@link #END_OF_RUN}).
 */
public final class WriteLatency extends ToolApplication
{
    private final LocalQp q;
    private final long total;
    private final long warmup;
    private final boolean client;
    private final boolean verify;
    private final LatencyLog recorder;
    private final int size;
    private final MemorySegment sendSlot;
    private final MemorySegment receiveSlot;
    /** Writes received (client) or sent (server) so far: the next message's number. */
    private long iteration;
    private long sendsCompleted;
    private long writesPosted;
    private long startNs;
    /** -D, else null. */
    private final DurationPhases duration;
    /**
     * -D: the byte before the marker in the client's answer after its duration's end (-D needs -s 2 or more). The
     * client ends the run, so that neither side stops writing while the other waits: the server writes until this.
     */
    static final byte END_OF_RUN = (byte)0xE0;
    private boolean endSent;
    private boolean endReceived;

    WriteLatency(
        final LocalQp q, final long total, final long warmup, final boolean client, final boolean verify,
        final LatencyLog recorder, final DurationPhases duration)
    {
        this.duration = duration;
        this.q = q;
        this.total = total;
        this.warmup = warmup;
        this.client = client;
        this.verify = verify;
        this.recorder = recorder;
        this.size = q.layout.messageBytes;
        this.sendSlot = q.sendSlot(0);
        this.receiveSlot = q.receiveSlot(0);
    }

    @Override
    public int doWork()
    {
        final int completed = sendCompletions(q.sendCq);
        if (completed < 0)
        {
            return 0;
        }
        sendsCompleted += completed;
        int work = completed;
        final boolean ending = duration != null && duration.advance(System.nanoTime()) == DurationPhases.END;
        if (iteration < total && receiveSlot.get(ValueLayout.JAVA_BYTE, size - 1) == Patterns.marker(iteration))
        {
            final long nowNs = System.nanoTime();
            if (!checkArrival(client ? Patterns.SERVER : Patterns.CLIENT))
            {
                return 0;
            }
            // the round trip from our last write to this arrival: the server's number `iteration`, the client's
            // `iteration - 1` (it answered message iteration - 1 and now sees message iteration)
            final long roundTrip = client ? iteration - 1 : iteration;
            if (writesPosted > 0 && roundTrip >= warmup && DurationPhases.measuring(duration))
            {
                recorder.record(nowNs - startNs);
                if (duration != null)
                {
                    duration.count(1);
                }
            }
            endReceived = !client && duration != null &&
                receiveSlot.get(ValueLayout.JAVA_BYTE, size - 2) == END_OF_RUN;
            if (client && !endSent)
            {
                if (duration != null)
                {
                    sendSlot.set(ValueLayout.JAVA_BYTE, size - 2, ending ? END_OF_RUN : 0);
                    endSent = ending;
                }
                startNs = System.nanoTime();
                writeMessage(Patterns.CLIENT); // answers message `iteration`
            }
            progress(++iteration);
            work++;
        }
        // the server opens round trip `iteration` — in the same call as the arrival that closed the previous one, so
        // its write leaves in this duty cycle's flush, not the next one's (a cycle later: +1.4 µs per round trip)
        if (!client && writesPosted == iteration && iteration < total && !endReceived)
        {
            startNs = System.nanoTime();
            writeMessage(Patterns.SERVER);
            work++;
        }
        if (duration != null ? (client ? endSent : endReceived) && sendsCompleted == writesPosted :
            iteration == total && sendsCompleted == total)
        {
            finish();
        }
        return work;
    }

    private void writeMessage(final int sender)
    {
        if (verify)
        {
            Patterns.fill(sendSlot, size - 1, iteration, sender);
        }
        sendSlot.set(ValueLayout.JAVA_BYTE, size - 1, Patterns.marker(iteration));
        final int rc = q.post(WrOpcode.RDMA_WRITE, iteration, q.regionAddress, size, q.remoteSlot(0), true);
        writesPosted++;
        if (rc != 0)
        {
            fail("ibv_post_send returned " + rc + " for write " + iteration);
        }
    }

    private boolean checkArrival(final int sender)
    {
        if (verify)
        {
            final String problem = Patterns.check(receiveSlot, size - 1, iteration, sender);
            if (problem != null)
            {
                fail("verify: " + problem);
                return false;
            }
        }
        return true;
    }
}
