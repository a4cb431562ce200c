package io.rnic.cm;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The CM's response timeouts (IBTA 12.9.5): each connection whose last MAD (REQ, REP or DREQ) waits for a reply is
 * sent again after the peer's CM response timeout, up to its retries, then given up. Apart from the state machine
 * because it is a timer set, not a protocol: it only keeps the connections that await a reply, so that a duty cycle
 * visits those and not every connection the manager holds.
 */
final class CmRetransmitter
{
    /** What to do with a connection whose last retry went unanswered. */
    @FunctionalInterface
    interface GiveUp
    {
        void onRetriesExhausted(CmConnection c, long nowNs);
    }

    private final GsiChannel channel;
    private final Consumer<CmCounter> counts;
    /** The connections with a MAD out that waits for its reply: the only ones the duty cycle visits for timers. */
    private final List<CmConnection> awaitingReply = new ArrayList<>();

    CmRetransmitter(final GsiChannel channel, final Consumer<CmCounter> counts)
    {
        this.channel = channel;
        this.counts = counts;
    }

    /** Sends the connection's last MAD and arms its retries: the peer's response timeout from now. */
    void sendAndAwait(final CmConnection c, final long nowNs)
    {
        if (c.awaitingIndex < 0)
        {
            c.awaitingIndex = awaitingReply.size();
            awaitingReply.add(c);
        }
        c.retriesLeft = c.maxRetries;
        c.retransmitAtNs = nowNs + ConnectionManager.timeoutNs(c.peerResponseTimeout);
        channel.send(c.peer, c.lastSent);
    }

    /** The reply came (or the connection is over): swap-removes it in O(1), the last one taking its place. */
    void stopAwaiting(final CmConnection c)
    {
        final int index = c.awaitingIndex;
        if (index < 0)
        {
            return;
        }
        final CmConnection last = awaitingReply.remove(awaitingReply.size() - 1);
        if (last != c)
        {
            awaitingReply.set(index, last);
            last.awaitingIndex = index;
        }
        c.awaitingIndex = -1;
    }

    /**
     * The peer sent an MRA: it answers later, so the MAD is not sent again before {@code untilNs} (IBTA 12.6.6, as
     * Linux's {@code cm_mra_handler} stretches the MAD's timeout). No retry is spent; nothing if it awaits no reply.
     */
    void extend(final CmConnection c, final long untilNs)
    {
        if (c.awaitingIndex >= 0 && untilNs - c.retransmitAtNs > 0)
        {
            c.retransmitAtNs = untilNs;
        }
    }

    /**
     * Sends again each last MAD whose response timeout passed, and hands each connection out of retries to
     * {@code giveUp} (no longer awaiting). Returns how many timers fired.
     */
    int poll(final long nowNs, final GiveUp giveUp)
    {
        int work = 0;
        // backwards: a connection that stops awaiting is replaced by the last one, which was already visited
        for (int i = awaitingReply.size() - 1; i >= 0; i--)
        {
            final CmConnection c = awaitingReply.get(i);
            if (nowNs - c.retransmitAtNs >= 0)
            {
                if (c.retriesLeft-- <= 0)
                {
                    stopAwaiting(c);
                    count(CmCounter.TIMEOUTS);
                    giveUp.onRetriesExhausted(c, nowNs);
                }
                else
                {
                    count(CmCounter.RETRANSMISSIONS);
                    channel.send(c.peer, c.lastSent);
                    c.retransmitAtNs = nowNs + ConnectionManager.timeoutNs(c.peerResponseTimeout);
                }
                work++;
            }
        }
        return work;
    }

    private void count(final CmCounter counter)
    {
        counts.accept(counter);
    }
}
