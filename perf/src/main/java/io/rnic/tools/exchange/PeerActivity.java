package io.rnic.tools.exchange;

import java.io.IOException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Whether a peer that says nothing on the exchange is still at work: the RoCEv2 packets our engine takes in keep
 * counting up. A side blocked on the exchange while its peer runs the test waits one {@code --timeout-ms} per read;
 * the server of an {@code -a} sweep waits in one read for the client's end of every size, which took longer than 60 s
 * on a veth: the server left in the middle, its port closed, and the client's next packets met nobody (retransmitted
 * until RETRY_EXC_ERR, counted nowhere). So a wait that times out while packets arrived waits another timeout; only a
 * quiet link ends it. The engine's own failure ends it at once: waiting on would be a hang.
 */
public final class PeerActivity
{
    private final LongSupplier packetsReceived;
    private final Supplier<String> failure;
    private long packetsSeen;

    /**
     * @param packetsReceived the RoCEv2 packets the engine took in so far (any thread).
     * @param failure         why the engine can no longer serve, or null while it can.
     */
    public PeerActivity(final LongSupplier packetsReceived, final Supplier<String> failure)
    {
        this.packetsReceived = packetsReceived;
        this.failure = failure;
    }

    /** A wait starts: the packets that arrive from now on show the peer at work. */
    void waitStarts()
    {
        packetsSeen = packetsReceived.getAsLong();
    }

    /**
     * A wait's timeout passed: whether to wait another, because packets arrived since the wait started or since the
     * last timeout.
     *
     * @throws IOException naming the engine's failure, if it failed.
     */
    boolean stillActive(final String awaited) throws IOException
    {
        final String engineFailure = failure.get();
        if (engineFailure != null)
        {
            throw new IOException(engineFailure + " (while waiting for the " + awaited + ")");
        }
        final long packets = packetsReceived.getAsLong();
        final boolean active = packets != packetsSeen;
        packetsSeen = packets;
        return active;
    }
}
