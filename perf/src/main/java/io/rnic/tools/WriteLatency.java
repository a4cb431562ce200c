package io.rnic.tools;

import io.rnic.verbs.WrOpcode;
import org.HdrHistogram.SingleWriterRecorder;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code ib_write_lat}: the two sides RDMA WRITE to each other in turn. Each watches the last byte of its receive
 * slot (a write's last byte lands last: RC places in PSN order); the client times from posting its write to seeing
 * the server's. With {@code --verify} every byte of every message is checked on arrival.
 */
final class WriteLatency extends ToolApplication
{
    private final LocalQp q;
    private final long total;
    private final long warmup;
    private final boolean client;
    private final boolean verify;
    private final SingleWriterRecorder recorder;
    private final int size;
    private final MemorySegment sendSlot;
    private final MemorySegment receiveSlot;
    private long iteration;
    private long sendsCompleted;
    private boolean waiting;
    private long startNs;

    WriteLatency(
        final LocalQp q, final long total, final long warmup, final boolean client, final boolean verify,
        final SingleWriterRecorder recorder)
    {
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
        if (!running())
        {
            return 0;
        }
        final int completed = drain(q.sendCq);
        if (completed < 0)
        {
            return 0;
        }
        sendsCompleted += completed;
        final boolean arrived = receiveSlot.get(ValueLayout.JAVA_BYTE, size - 1) == Patterns.marker(iteration);
        if (client)
        {
            if (!waiting && iteration < total)
            {
                startNs = System.nanoTime();
                writeMessage(Patterns.CLIENT);
                waiting = true;
                return 1;
            }
            if (waiting && arrived)
            {
                final long roundTripNs = System.nanoTime() - startNs;
                if (!checkArrival(Patterns.SERVER))
                {
                    return 0;
                }
                if (iteration >= warmup)
                {
                    recorder.recordValue(roundTripNs);
                }
                waiting = false;
                progress(++iteration);
                return 1;
            }
        }
        else if (arrived && iteration < total)
        {
            if (!checkArrival(Patterns.CLIENT))
            {
                return 0;
            }
            writeMessage(Patterns.SERVER);
            progress(++iteration);
            return 1;
        }
        if (iteration == total && sendsCompleted == total)
        {
            finish();
        }
        return completed;
    }

    private void writeMessage(final int sender)
    {
        if (verify)
        {
            Patterns.fill(sendSlot, size - 1, iteration, sender);
        }
        sendSlot.set(ValueLayout.JAVA_BYTE, size - 1, Patterns.marker(iteration));
        final int rc = q.post(WrOpcode.RDMA_WRITE, iteration, q.regionAddress, size, q.remoteSlot(0), true);
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
