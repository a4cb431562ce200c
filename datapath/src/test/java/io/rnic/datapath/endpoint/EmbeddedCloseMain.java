package io.rnic.datapath.endpoint;

import io.rnic.datapath.cm.RdmaCm;
import io.rnic.datapath.cm.RdmaConnection;
import io.rnic.datapath.cm.RdmaListener;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WrOpcode;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Closes an {@link EmbeddedContext} whose memory is still registered while RDMA WRITEs and READs stream between it
 * and its peer, once as the target and once as the initiator, in a JVM of its own ({@link EmbeddedContextCloseTest}):
 * memory freed while an engine thread still reads or writes it kills this JVM with SIGSEGV, which the test sees as a
 * non-zero exit. Prints one line per scenario; exits 0 when both ran with traffic flowing at the close.
 */
public final class EmbeddedCloseMain
{
    private static final int PORT = 7471;
    /** Above glibc's largest mmap threshold (32 MiB): malloc maps each region and free unmaps it, so a late access faults. */
    private static final int REGION_BYTES = 64 << 20;
    private static final int STREAMED_BYTES = 4 << 20;
    private static final int MESSAGE_BYTES = 64 << 10;
    private static final int IN_FLIGHT = 8;
    private static final long COMPLETIONS_BEFORE_CLOSE = 50;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private EmbeddedCloseMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        boolean ok = scenario("close the target while its peer writes and reads it", false);
        ok &= scenario("close the initiator while it writes and reads its peer", true);
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }

    private static boolean scenario(final String name, final boolean closeInitiator) throws Exception
    {
        final InMemoryContexts pair = InMemoryContexts.pair();
        final EmbeddedContext initiator = pair.first();
        final EmbeddedContext target = pair.second();
        final RdmaCm cmA = RdmaCm.open(initiator);
        final RdmaCm cmB = RdmaCm.open(target);
        final Side a = new Side(initiator);
        final Side b = new Side(target);
        final RdmaListener listener = cmB.listen(PORT);
        final CompletableFuture<RdmaConnection> accepted =
            CompletableFuture.supplyAsync(() -> listener.accept(b.init(), TIMEOUT, new byte[0]));
        final RdmaConnection connection = cmA.connect(pair.secondIpv4(), PORT, a.init(), TIMEOUT, new byte[0]);
        accepted.get(10, TimeUnit.SECONDS);

        final AtomicLong successes = new AtomicLong();
        final Thread streamer = Thread.ofPlatform().name("streamer").start(() ->
        {
            final SendWorkRequest request = new SendWorkRequest();
            final WorkCompletion[] completions = new WorkCompletion[IN_FLIGHT];
            int outstanding = 0;
            long posted = 0;
            try
            {
                while (!Thread.currentThread().isInterrupted())
                {
                    while (outstanding < IN_FLIGHT)
                    {
                        request.sgl.clear();
                        request.opcode = (posted & 1) == 0 ? WrOpcode.RDMA_WRITE : WrOpcode.RDMA_READ;
                        final long offset = (posted % (STREAMED_BYTES / MESSAGE_BYTES)) * MESSAGE_BYTES;
                        request.sgl.add(a.mr.address() + offset, MESSAGE_BYTES, a.mr.lKey());
                        request.remoteAddress = b.mr.address() + offset;
                        request.rKey = b.mr.rKey();
                        if (connection.qp().postSend(request) != 0)
                        {
                            return; // the QP is in the error state: the peer is gone
                        }
                        outstanding++;
                        posted++;
                    }
                    final int n = a.sendCq.poll(completions, completions.length);
                    for (int i = 0; i < n; i++)
                    {
                        outstanding--;
                        if (completions[i].status() != WcStatus.SUCCESS)
                        {
                            return; // retry exceeded or flushed: the peer is gone
                        }
                        successes.incrementAndGet();
                    }
                    Thread.onSpinWait();
                }
            }
            catch (final RuntimeException ex)
            {
                // posting to a context closed under us may refuse with an exception: an answer, not a crash
            }
        });

        final long deadlineNs = System.nanoTime() + TIMEOUT.toNanos();
        while (successes.get() < COMPLETIONS_BEFORE_CLOSE && System.nanoTime() < deadlineNs)
        {
            Thread.onSpinWait();
        }
        final long before = successes.get();
        // the regions stay registered, the QPs connected, the WRITEs and READs in flight
        (closeInitiator ? initiator : target).close();
        streamer.interrupt();
        streamer.join(TIMEOUT.toMillis());
        pair.close();
        final boolean ok = before >= COMPLETIONS_BEFORE_CLOSE && !streamer.isAlive();
        System.out.println((ok ? "ok   " : "FAIL ") + name + ": " + before + " operations completed before the close" +
            (streamer.isAlive() ? ", the streamer still runs" : ""));
        return ok;
    }

    /** A PD, a CQ and a region from the context's {@code allocate}, registered with every access right. */
    private static final class Side
    {
        final ProtectionDomain pd;
        final CompletionQueue sendCq;
        final MemorySegment memory;
        final MemoryRegion mr;

        Side(final EmbeddedContext context)
        {
            pd = context.allocPd();
            sendCq = context.createCq(64);
            memory = context.allocate(REGION_BYTES);
            mr = context.registerMemoryRegion(pd, memory, AccessFlags.ALL);
        }

        QpInitAttributes init()
        {
            return new QpInitAttributes().type(QpType.RC).pd(pd).cqs(sendCq, sendCq);
        }
    }
}
