package io.rnic.datapath.driver;

import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.device.ConnectParameters;
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
import io.rnic.verbs.WrOpcode;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * One end of an RC connection the driver tests make by hand: a QP, its CQs and a registered buffer on any context,
 * connected to a QPN that may live in another process, with the ACK timeout and retry count the test needs.
 */
final class RcEnd
{
    /** Start PSN of both ends. */
    static final int PSN = 0x100;

    final RnicContext context;
    final ProtectionDomain pd;
    final CompletionQueue sendCq;
    final CompletionQueue recvCq;
    final QueuePair qp;
    final MemorySegment memory;
    final MemoryRegion mr;
    private final WorkCompletion[] completion = { new WorkCompletion() };
    private final SendWorkRequest write = new SendWorkRequest();

    RcEnd(final RnicContext context, final long memoryBytes)
    {
        this.context = context;
        pd = context.allocPd();
        sendCq = context.createCq(256);
        recvCq = context.createCq(256);
        qp = context.createQp(new QpInitAttributes().type(QpType.RC).pd(pd).cqs(sendCq, recvCq));
        memory = context.allocate(memoryBytes);
        mr = context.registerMemoryRegion(pd, memory, AccessFlags.ALL);
    }

    /**
     * Takes the QP to RTS towards {@code remoteQpn} at {@code remoteIp}.
     *
     * @param timeout    the local ACK timeout, 4.096 µs·2^timeout (ibverbs' encoding).
     * @param retryCount retries without progress before RETRY_EXC_ERR.
     */
    void connect(final int remoteQpn, final InetAddress remoteIp, final int timeout, final int retryCount)
    {
        final long mac = context.resolveMac(remoteIp, 1, Duration.ofSeconds(5));
        final ConnectParameters parameters = new ConnectParameters()
            .remote(remoteQpn, PSN)
            .localPsn(PSN)
            .readAtomic(4, 4)
            .timers(timeout, retryCount, 7, 12);
        parameters.addressVector.destinationIpv4((int)InterfaceAddresses.gidOf(remoteIp)[1])
            .destinationMac(mac).sourceGidIndex(1);
        parameters.applyTo(qp);
    }

    /** Posts an RDMA WRITE of {@code lengthBytes} from the start of this end's buffer. */
    int postWrite(final long wrId, final long remoteAddress, final int rKey, final int lengthBytes)
    {
        write.reset();
        write.opcode = WrOpcode.RDMA_WRITE;
        write.wrId = wrId;
        write.sgl.add(mr.address(), lengthBytes, mr.lKey());
        write.remoteAddress = remoteAddress;
        write.rKey = rKey;
        return qp.postSend(write);
    }

    /** The next completion of {@code cq} (valid until the next call), or null when none came within the timeout. */
    WorkCompletion poll(final CompletionQueue cq, final long timeoutNs)
    {
        final long deadlineNs = System.nanoTime() + timeoutNs;
        while (cq.poll(completion, 1) == 0)
        {
            if (System.nanoTime() > deadlineNs)
            {
                return null;
            }
            LockSupport.parkNanos(50_000);
        }
        return completion[0];
    }
}
