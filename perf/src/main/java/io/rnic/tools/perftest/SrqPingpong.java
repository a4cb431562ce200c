package io.rnic.tools.perftest;

import io.rnic.device.QueuePair;
import io.rnic.device.RnicContext;
import io.rnic.tools.LocalQp;
import io.rnic.tools.QpLayout;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendFlags;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.SharedReceiveQueue;
import io.rnic.verbs.SrqAttributes;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;

import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;

/**
 * {@code srq-pingpong}, as rdma-core's {@code ibv_srq_pingpong} runs: {@code -q} RC QPs (16) on one CQ take their
 * receives from one SRQ of {@code -r} requests (500), every SEND and receive on one buffer of {@code -s} bytes. The
 * client sends on each QP; a QP sends again once its last send and a receive on it have completed (the receive's QP
 * is the completion's {@code qp_num}), until {@code -n} sends and {@code -n} receives have completed in all; the SRQ
 * is topped up to {@code -r} when it falls to {@code -q}. The counts are over all QPs, as the original counts them.
 * Runs in the engine's duty cycle ({@link ToolApplication}); allocates nothing per message.
 */
final class SrqPingpong extends ToolApplication
{
    /** ibv_srq_pingpong's wr_ids: the bits of a QP's pending mask. */
    static final long RECV_WRID = 1;
    static final long SEND_WRID = 2;

    private final LocalQp[] qps;
    private final CompletionQueue cq;
    private final SharedReceiveQueue srq;
    private final int rxDepth;
    private final long iterations;
    private final boolean client;
    private final int[] pending;
    private final SendWorkRequest send = new SendWorkRequest();
    private final RecvWorkRequest recv = new RecvWorkRequest();
    /** The QPs' numbers, in the order of {@link #qps}: what a completion's qp_num is looked up in. */
    private final int[] qpNumbers;
    private long sendCount;
    private long recvCount;
    private int receivesOut;
    private boolean started;

    private SrqPingpong(
        final LocalQp[] qps,
        final CompletionQueue cq,
        final SharedReceiveQueue srq,
        final MemoryRegion mr,
        final ToolOptions options)
    {
        this.qps = qps;
        this.cq = cq;
        this.srq = srq;
        this.rxDepth = options.rxDepth;
        this.iterations = options.iterations;
        this.client = !options.isServer();
        this.pending = new int[qps.length];
        this.qpNumbers = new int[qps.length];
        for (int i = 0; i < qps.length; i++)
        {
            qpNumbers[i] = qps[i].qp.qpn();
        }
        send.wrId = SEND_WRID;
        send.opcode = WrOpcode.SEND;
        send.sendFlags = SendFlags.SIGNALED;
        send.sgl.add(mr.address(), options.size, mr.lKey());
        recv.wrId = RECV_WRID;
        recv.sgl.add(mr.address(), options.size, mr.lKey());
        if (options.flags.events)
        {
            useEvents(qps);
        }
    }

    /**
     * The SRQ, the QPs on it and their CQ, the buffer; the SRQ filled with {@code -r} receives before the exchange,
     * as the original posts them before it meets the peer. Returns the QPs; {@link #create} makes the application.
     */
    static Setup setUp(final RnicContext context, final ToolOptions options)
    {
        final ProtectionDomain pd = context.allocPd();
        final MemorySegment buffer = context.allocate(Math.max(options.size, 4096));
        final MemoryRegion mr = context.registerMemoryRegion(pd, buffer, AccessFlags.LOCAL_WRITE);
        final CompletionQueue cq = context.createCq(options.rxDepth + options.qps);
        final SharedReceiveQueue srq = context.createSrq(pd, new SrqAttributes().maxWr(options.rxDepth).maxSge(1));
        final QpLayout layout = new QpLayout(options.size, false);
        final SecureRandom random = new SecureRandom();
        final LocalQp[] qps = new LocalQp[options.qps];
        for (int i = 0; i < qps.length; i++)
        {
            final QueuePair qp = context.createQp(new QpInitAttributes().type(QpType.RC).pd(pd).cqs(cq, cq)
                .capacity(2, 1).maxSge(1, 1).srq(srq));
            qps[i] = new LocalQp(qp, cq, cq, buffer, mr.lKey(), mr.rKey(), layout);
            qps[i].psn = random.nextInt(1 << 24);
        }
        final Setup setup = new Setup(qps, cq, srq, mr);
        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.wrId = RECV_WRID;
        recv.sgl.add(mr.address(), options.size, mr.lKey());
        for (int i = 0; i < options.rxDepth; i++)
        {
            if (srq.postRecv(recv) != 0)
            {
                throw new IllegalStateException("Couldn't post receive (" + i + ")");
            }
        }
        return setup;
    }

    /** What {@link #setUp} made. */
    record Setup(LocalQp[] qps, CompletionQueue cq, SharedReceiveQueue srq, MemoryRegion mr)
    {
    }

    /** The run, once the QPs are connected (the client's first sends go out in its first duty cycle). */
    static SrqPingpong create(final Setup setup, final ToolOptions options)
    {
        final SrqPingpong application = new SrqPingpong(setup.qps(), setup.cq(), setup.srq(), setup.mr(), options);
        application.receivesOut = options.rxDepth;
        return application;
    }

    @Override
    public int doWork()
    {
        if (!running())
        {
            return 0;
        }
        int work = 0;
        if (!started)
        {
            started = true;
            for (int i = 0; i < qps.length; i++)
            {
                if (client)
                {
                    if (!postSend(i))
                    {
                        return 1;
                    }
                    pending[i] = (int)(SEND_WRID | RECV_WRID);
                }
                else
                {
                    pending[i] = (int)RECV_WRID;
                }
            }
            work++;
        }
        final int n = poll(cq, completions.length);
        for (int i = 0; i < n && running(); i++)
        {
            work++;
            final WorkCompletion wc = completions[i];
            if (wc.status() != WcStatus.SUCCESS)
            {
                fail("Failed status " + wc.status() + " (" + wc.statusValue() + ") for wr_id " + wc.wrId());
                return work;
            }
            final int index = indexOf(wc.qpNumber());
            if (index < 0)
            {
                fail(String.format("Couldn't find QPN %06x", wc.qpNumber()));
                return work;
            }
            if (wc.wrId() == SEND_WRID)
            {
                sendCount++;
            }
            else if (wc.wrId() == RECV_WRID)
            {
                if (--receivesOut <= qps.length)
                {
                    while (receivesOut < rxDepth && srq.postRecv(recv) == 0)
                    {
                        receivesOut++;
                    }
                    if (receivesOut < rxDepth)
                    {
                        fail("Couldn't post receive (" + receivesOut + ")");
                        return work;
                    }
                }
                recvCount++;
            }
            else
            {
                fail("Completion for unknown wr_id " + wc.wrId());
                return work;
            }
            pending[index] &= ~(int)wc.wrId();
            if (sendCount < iterations && pending[index] == 0)
            {
                if (!postSend(index))
                {
                    return work;
                }
                pending[index] = (int)(RECV_WRID | SEND_WRID);
            }
        }
        progress(Math.min(sendCount, recvCount));
        if (recvCount >= iterations && sendCount >= iterations)
        {
            finish();
        }
        return work;
    }

    private boolean postSend(final int index)
    {
        final int result = qps[index].qp.postSend(send);
        if (result != QueuePair.POST_OK)
        {
            fail("Couldn't post send (QP " + qps[index].qp.qpn() + ", errno " + result + ")");
            return false;
        }
        return true;
    }

    /** ibv_srq_pingpong's find_qp: the QP a completion names, by number. */
    private int indexOf(final int qpn)
    {
        for (int i = 0; i < qpNumbers.length; i++)
        {
            if (qpNumbers[i] == qpn)
            {
                return i;
            }
        }
        return -1;
    }
}
