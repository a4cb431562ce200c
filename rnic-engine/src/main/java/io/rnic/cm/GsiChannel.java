package io.rnic.cm;

import io.rnic.device.ConnectParameters;
import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.AddressVector;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.ProtectionDomain;
import io.rnic.verbs.QpInitAttributes;
import io.rnic.verbs.QpType;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.function.Consumer;

/**
 * The GSI QP (QP1) and its registered slots: receives MADs and hands each whole one to a {@link MadHandler}, sends
 * MADs from a ring of send slots, and reads a datagram's source from its GRH area. Apart from the CM's state machine
 * because what it holds (a UD QP, two CQs, an MR and the slot layout) is verbs plumbing that every MAD class would
 * share, and none of it depends on what a MAD says.
 */
final class GsiChannel implements AutoCloseable
{
    /** The GSI's Q_Key (IBTA 13.4.6.1). */
    static final int GSI_QKEY = 0x8001_0000;
    /** What a UD receive holds before the payload: the GRH, or an IPv4 header in its last 20 bytes. */
    static final int GRH_BYTES = 40;
    private static final int SLOT_BYTES = GRH_BYTES + CmMadFlyweight.LENGTH;
    private static final int RECEIVE_SLOTS = 32;
    private static final int SEND_SLOTS = 32;

    /** What the channel hands each well-formed receive to. */
    @FunctionalInterface
    interface MadHandler
    {
        /**
         * @param grhOffset where the datagram's GRH area starts in {@link #buffer()}; the MAD follows it.
         * @param ipv6      whether the GRH area holds an IPv6 header (else an IPv4 one).
         */
        void onMad(int grhOffset, boolean ipv6, long nowNs);
    }

    private final RnicDevice device;
    private final LocalPort localPort;
    private final Consumer<CmCounter> counts;
    private final Arena arena = Arena.ofShared();
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final QueuePair gsi;
    private final MemoryRegion mr;
    private final UnsafeBuffer buffer;
    private final WorkCompletion[] completions = new WorkCompletion[16];
    private final SendWorkRequest send = new SendWorkRequest();
    private final RecvWorkRequest recv = new RecvWorkRequest();
    private int nextSendSlot;
    /** The source of the datagram last read by {@link #readSource}. */
    private long sourceGidHigh;
    private long sourceGidLow;

    /** Creates the device's GSI QP and posts its receives; {@code counts} takes what the channel counts. */
    GsiChannel(final RnicDevice device, final LocalPort localPort, final Consumer<CmCounter> counts)
    {
        this.device = device;
        this.localPort = localPort;
        this.counts = counts;
        for (int i = 0; i < completions.length; i++)
        {
            completions[i] = new WorkCompletion();
        }
        final ProtectionDomain pd = device.allocPd();
        sendCq = device.createCq(2 * SEND_SLOTS);
        recvCq = device.createCq(2 * RECEIVE_SLOTS);
        final MemorySegment memory = arena.allocate((long)SLOT_BYTES * (RECEIVE_SLOTS + SEND_SLOTS), 4096);
        buffer = new UnsafeBuffer(memory.address(), (int)memory.byteSize());
        mr = device.registerMemoryRegion(pd, memory, AccessFlags.LOCAL_WRITE);
        gsi = device.createGsiQp(new QpInitAttributes().type(QpType.UD).pd(pd).cqs(sendCq, recvCq)
            .capacity(SEND_SLOTS, RECEIVE_SLOTS).signalAll(true));
        final ConnectParameters parameters = new ConnectParameters();
        parameters.qkey = GSI_QKEY;
        parameters.applyTo(gsi);
        for (int slot = 0; slot < RECEIVE_SLOTS; slot++)
        {
            postReceive(slot);
        }
    }

    /** The receive and send slots: where {@link MadHandler#onMad} finds the datagram. */
    UnsafeBuffer buffer()
    {
        return buffer;
    }

    /**
     * Drains both CQs: counts failed sends, drops failed and short receives (counted), hands each whole MAD to
     * {@code handler} and posts its slot again. Returns the completions seen.
     */
    int poll(final long nowNs, final MadHandler handler)
    {
        int work = 0;
        int n;
        while ((n = sendCq.poll(completions, completions.length)) > 0)
        {
            for (int i = 0; i < n; i++)
            {
                if (completions[i].status() != WcStatus.SUCCESS)
                {
                    count(CmCounter.SEND_ERRORS);
                }
            }
            work += n;
        }
        while ((n = recvCq.poll(completions, completions.length)) > 0)
        {
            for (int i = 0; i < n; i++)
            {
                final WorkCompletion wc = completions[i];
                final int slot = (int)wc.wrId();
                if (wc.status() != WcStatus.SUCCESS)
                {
                    count(CmCounter.DROPPED_RECEIVE_ERROR);
                }
                else if (wc.byteLength() < SLOT_BYTES)
                {
                    count(CmCounter.DROPPED_TRUNCATED);
                }
                else
                {
                    handler.onMad(slot * SLOT_BYTES, wc.networkHeaderType() == WorkCompletion.NETWORK_HDR_IPV6, nowNs);
                }
                postReceive(slot);
            }
            work += n;
        }
        return work;
    }

    /** Sends a MAD kept as bytes (a connection's last one). */
    void send(final AddressVector to, final byte[] mad)
    {
        final int offset = nextSendOffset();
        buffer.putBytes(offset, mad);
        post(to, offset);
    }

    /** Sends the MAD at the start of {@code from}. */
    void send(final AddressVector to, final DirectBuffer from)
    {
        final int offset = nextSendOffset();
        buffer.putBytes(offset, from, 0, CmMadFlyweight.LENGTH);
        post(to, offset);
    }

    /**
     * The source GID of the datagram whose GRH area starts at {@code grh} into {@link #sourceGidHigh()} /
     * {@link #sourceGidLow()}; returns the index of our GID it was sent to, -1 if none is.
     */
    int readSource(final int grh, final boolean ipv6)
    {
        if (ipv6)
        {
            sourceGidHigh = buffer.getLong(grh + 8, ByteOrder.BIG_ENDIAN);
            sourceGidLow = buffer.getLong(grh + 16, ByteOrder.BIG_ENDIAN);
            return gidOf(buffer.getLong(grh + 24, ByteOrder.BIG_ENDIAN), buffer.getLong(grh + 32, ByteOrder.BIG_ENDIAN));
        }
        sourceGidHigh = 0;
        sourceGidLow = 0x0000_FFFF_0000_0000L | (buffer.getInt(grh + 20 + 12, ByteOrder.BIG_ENDIAN) & 0xFFFF_FFFFL);
        return gidOf(0, 0x0000_FFFF_0000_0000L | (buffer.getInt(grh + 20 + 16, ByteOrder.BIG_ENDIAN) & 0xFFFF_FFFFL));
    }

    long sourceGidHigh()
    {
        return sourceGidHigh;
    }

    long sourceGidLow()
    {
        return sourceGidLow;
    }

    private int nextSendOffset()
    {
        final int offset = (RECEIVE_SLOTS + nextSendSlot) * SLOT_BYTES;
        nextSendSlot = (nextSendSlot + 1) % SEND_SLOTS;
        return offset;
    }

    private void post(final AddressVector to, final int offset)
    {
        send.reset();
        send.sgl.add(mr.address() + offset, CmMadFlyweight.LENGTH, mr.lKey());
        send.udRemoteQpn = 1;
        send.udRemoteQkey = GSI_QKEY;
        send.udAddress.copyFrom(to);
        if (gsi.postSend(send) == QueuePair.POST_OK)
        {
            count(CmCounter.MADS_SENT);
        }
        else
        {
            count(CmCounter.SEND_ERRORS);
        }
    }

    private void postReceive(final int slot)
    {
        recv.wrId = slot;
        recv.sgl.clear();
        recv.sgl.add(mr.address() + (long)slot * SLOT_BYTES, SLOT_BYTES, mr.lKey());
        gsi.postRecv(recv);
    }

    private int gidOf(final long high, final long low)
    {
        for (int i = 0; i < localPort.gidCount(); i++)
        {
            if (localPort.gidHigh(i) == high && localPort.gidLow(i) == low)
            {
                return i;
            }
        }
        return -1;
    }

    private void count(final CmCounter counter)
    {
        counts.accept(counter);
    }

    /** Destroys the GSI QP and deregisters its slots. */
    @Override
    public void close()
    {
        device.destroyQp(gsi);
        device.deregisterMemoryRegion(mr);
        arena.close();
    }
}
