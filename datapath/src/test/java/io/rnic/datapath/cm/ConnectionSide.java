package io.rnic.datapath.cm;

import io.rnic.device.QueuePair;
import io.rnic.device.RnicContext;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WorkCompletion;

import java.lang.foreign.MemorySegment;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One end of a connection test, embedded or through a driver: a PD, two CQs and a region of twice
 * {@link #MESSAGE_BYTES} from the context's own memory (through a driver only that can be registered), registered with
 * every access right; posts whole-message WRITEs and READs and waits for their completions.
 */
public final class ConnectionSide
{
    public static final int MESSAGE_BYTES = 1 << 20;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    public final ProtectionDomain pd;
    public final CompletionQueue sendCq;
    public final CompletionQueue recvCq;
    public final MemorySegment memory;
    public final MemoryRegion mr;
    private final SendWorkRequest request = new SendWorkRequest();
    private final WorkCompletion[] completion = new WorkCompletion[1];

    public ConnectionSide(final RnicContext context)
    {
        pd = context.allocPd();
        sendCq = context.createCq(64);
        recvCq = context.createCq(64);
        memory = context.allocate(2L * MESSAGE_BYTES);
        mr = context.registerMemoryRegion(pd, memory, AccessFlags.ALL);
    }

    public QpInitAttributes init()
    {
        return new QpInitAttributes().type(QpType.RC).pd(pd).cqs(sendCq, recvCq);
    }

    /** A {@link #MESSAGE_BYTES} {@code opcode} from this region at {@code localOffset} to the remote one. */
    public void post(final QueuePair qp, final int opcode, final long localOffset, final long remoteAddress,
        final int rKey)
    {
        request.sgl.clear();
        request.opcode = opcode;
        request.sgl.add(mr.address() + localOffset, MESSAGE_BYTES, mr.lKey());
        request.remoteAddress = remoteAddress;
        request.rKey = rKey;
        assertEquals(0, qp.postSend(request));
    }

    /** The next completion of {@code cq}, waited for up to 10 s. */
    public WorkCompletion await(final CompletionQueue cq)
    {
        final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
        while (cq.poll(completion, 1) == 0)
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new AssertionError("no completion within " + TIMEOUT);
            }
            Thread.yield();
        }
        return completion[0];
    }
}
