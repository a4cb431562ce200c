package io.rnic.tools.perftest;

import io.rnic.tools.LocalQp;
import io.rnic.tools.QpLayout;
import io.rnic.verbs.QpType;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code ib_send_lat} and the pingpongs ({@code ibv_rc_pingpong}, {@code ibv_ud_pingpong}): the client SENDs, the
 * server answers each received message with a SEND of its own; the client times from posting to receiving the
 * answer, the server (as perftest's) from its answer to the next message. With {@code -D} each counts the round
 * trips that end in its measurement; the client ends the run with a last message ({@link #END_OF_RUN}). Receive
 * WQEs are posted ahead ({@code -r}) and replaced as they complete, one for each message of the run.
 */
public final class SendLatency extends ToolApplication
{
    private final LocalQp q;
    private final long total;
    private final long warmup;
    private final boolean client;
    private final boolean verify;
    private final boolean immediate;
    private final LatencyLog recorder;
    private final int size;
    private final int payloadOffset;
    private final MemorySegment sendSlot;
    private final MemorySegment receiveSlot;
    private long iteration;
    private long sendsCompleted;
    private long receivesPosted;
    private boolean waiting;
    private long startNs;
    private long sendsPosted;
    /** -D, else null. */
    private final DurationPhases duration;
    /**
     * -D: the first payload byte of the client's message after its duration's end (the payload is free: --verify
     * is refused with -D). The client ends the run, so that neither side stops answering while the other still
     * sends: the server answers every message until this one.
     */
    static final byte END_OF_RUN = (byte)0xE0;
    private boolean endSent;
    private boolean endReceived;

    SendLatency(
        final LocalQp q, final long total, final long warmup, final boolean client, final boolean verify,
        final boolean immediate, final LatencyLog recorder, final DurationPhases duration)
    {
        this.duration = duration;
        this.immediate = immediate;
        this.q = q;
        this.total = total;
        this.warmup = warmup;
        this.client = client;
        this.verify = verify;
        this.recorder = recorder;
        this.size = q.layout.messageBytes;
        this.payloadOffset = q.qp.type() == QpType.UD ? QpLayout.GRH_BYTES : 0;
        this.sendSlot = q.sendSlot(0);
        this.receiveSlot = q.receiveSlot(0);
    }

    /** Posts the first receive WQEs: before the peer can send (called before the barrier). */
    void postReceives(final int depth)
    {
        for (int i = 0; i < depth; i++)
        {
            final int rc = q.postReceive(receivesPosted++, 0);
            if (rc != 0)
            {
                throw new IllegalStateException("ibv_post_recv returned " + rc + " (receive queue depth " + depth +
                    ")");
            }
        }
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
        if (client && !waiting && iteration < total && !endSent)
        {
            if (duration != null)
            {
                sendSlot.set(ValueLayout.JAVA_BYTE, 0, ending ? END_OF_RUN : 0);
                endSent = ending;
            }
            startNs = System.nanoTime();
            if (!sendMessage(Patterns.CLIENT))
            {
                return 0;
            }
            waiting = true;
            work++;
        }
        if (poll(q.recvCq, 1) == 1)
        {
            final long endNs = System.nanoTime();
            final WorkCompletion wc = completions[0];
            if (!checkCompletion(wc) || !checkArrival(wc, client ? Patterns.SERVER : Patterns.CLIENT))
            {
                return 0;
            }
            // no more than `total`: -a's next size posts receives of its own on the same QP, and none of this
            // size's, too short for the next, may be left for its messages
            if (receivesPosted < total)
            {
                final int rc = q.postReceive(receivesPosted++, 0);
                if (rc != 0)
                {
                    fail("ibv_post_recv returned " + rc);
                    return 0;
                }
            }
            if (client)
            {
                if (iteration >= warmup && DurationPhases.measuring(duration))
                {
                    recorder.record(endNs - startNs);
                    if (duration != null)
                    {
                        duration.count(1);
                    }
                }
                waiting = false;
            }
            else
            {
                // the server times too, as perftest's: from its answer to message n - 1 to message n's arrival
                if (iteration > warmup && DurationPhases.measuring(duration))
                {
                    recorder.record(endNs - startNs);
                    if (duration != null)
                    {
                        duration.count(1);
                    }
                }
                startNs = System.nanoTime();
                endReceived = duration != null &&
                    receiveSlot.get(ValueLayout.JAVA_BYTE, payloadOffset) == END_OF_RUN;
                if (!sendMessage(Patterns.SERVER))
                {
                    return 0;
                }
            }
            progress(++iteration);
            work++;
        }
        if (duration != null ? (client ? endSent && !waiting : endReceived) && sendsCompleted == sendsPosted :
            iteration == total && sendsCompleted == total)
        {
            finish();
        }
        return work;
    }

    private boolean sendMessage(final int sender)
    {
        if (verify)
        {
            Patterns.fill(sendSlot, size, iteration, sender);
        }
        q.send.immediateOrInvalidateRKey = (int)iteration;
        final int rc = q.post(immediate ? WrOpcode.SEND_WITH_IMM : WrOpcode.SEND, iteration, q.regionAddress, size, 0,
            true);
        if (rc != 0)
        {
            fail("ibv_post_send returned " + rc + " for send " + iteration);
            return false;
        }
        sendsPosted++;
        return true;
    }

    private boolean checkArrival(final WorkCompletion wc, final int sender)
    {
        if (wc.byteLength() != size + payloadOffset)
        {
            fail("received " + wc.byteLength() + " bytes in message " + iteration + ", expected " +
                (size + payloadOffset));
            return false;
        }
        if (verify && immediate && (!wc.hasFlag(WorkCompletion.WITH_IMM) || wc.immediateData() != (int)iteration))
        {
            fail("verify: message " + iteration + " arrived " + (wc.hasFlag(WorkCompletion.WITH_IMM) ?
                "with immediate " + wc.immediateData() : "without immediate data"));
            return false;
        }
        if (verify)
        {
            final String problem = Patterns.check(receiveSlot.asSlice(payloadOffset), size, iteration, sender);
            if (problem != null)
            {
                fail("verify: " + problem);
                return false;
            }
        }
        return true;
    }
}
