package io.rnic.transport;

import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.SendFlags;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WrOpcode;
import io.rnic.wire.DropReason;
import io.rnic.wire.InboundValidator;
import io.rnic.wire.Opcode;
import io.rnic.wire.RocePacket;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;

import static io.rnic.transport.RcOperationsTest.assertBytes;
import static io.rnic.transport.RcOperationsTest.fill;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An RDMA READ that loses a response, and then loses the first response of the answer to its re-request. The rest
 * of that answer shows the loss at once: the requester asks again then, one more time only, instead of waiting for
 * the local ACK timeout (timeout 8: 1.05 ms). Lossless link; the test drops exactly the frames it names.
 */
class ReadReRequestTest
{
    private static final int PACKETS = 16;
    private static final int READ_BYTES = PACKETS * 1024; // MTU 1024
    private static final int FIRST_PSN = 0x10_0000;      // Connection's starting PSN of A
    private static final int MISSING_PSN = FIRST_PSN + 5; // lost from the READ's burst and from the re-request's
    private static final long TIMEOUT_NS = Timeouts.localAckTimeoutNs(8);

    private final Arena arena = Arena.ofShared();
    private final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
    private final InboundValidator validator = new InboundValidator();
    private final RocePacket packet = new RocePacket();
    private int readRequestsSent;
    private int missingPsnSeen;

    @AfterEach
    void close()
    {
        arena.close();
    }

    @Test
    void shouldAskAgainAtOnceWhenTheAnswerToAReRequestLosesItsFirstPacket()
    {
        final long elapsedNs = readWithLosses(false);

        assertEquals(3, readRequestsSent, "the READ, its re-request after the lost packet, one more after the lost " +
            "first packet of the answer; no more for the rest of that answer");
        assertEquals(2, counter(TransportCounter.IMPLIED_NAK));
        assertEquals(0, counter(TransportCounter.LOCAL_ACK_TIMEOUT), "no wait for the timer");
        assertTrue(elapsedNs < TIMEOUT_NS / 10, "completed in " + elapsedNs + " ns, the ACK timeout is " + TIMEOUT_NS);
    }

    @Test
    void shouldAskAgainOnlyOnceWhenEveryPacketOfTheAnswerArrivesTwice()
    {
        final long elapsedNs = readWithLosses(true);

        assertEquals(3, readRequestsSent, "duplicated packets (the LAST too) ask no more than one extra time");
        assertEquals(2, counter(TransportCounter.IMPLIED_NAK));
        assertEquals(0, counter(TransportCounter.LOCAL_ACK_TIMEOUT));
        assertTrue(elapsedNs < TIMEOUT_NS / 10, "completed in " + elapsedNs + " ns, the ACK timeout is " + TIMEOUT_NS);
    }

    /**
     * Reads {@link #READ_BYTES} from B, dropping the response at {@link #MISSING_PSN} the first two times B sends it;
     * {@code duplicateAnswer}: every later packet of the second burst (the answer to the re-request) goes twice.
     * Returns the virtual time from posting to the completion.
     */
    private long readWithLosses(final boolean duplicateAnswer)
    {
        final Connection[] pair = Connection.rcPair(fabric, arena, 1 << 20, PathMtu.MTU_1024);
        final Connection a = pair[0];
        final Connection b = pair[1];
        fill(b, 0, READ_BYTES, 7);
        fabric.a().engine().sink((buffer, offset, length) ->
        {
            if (parse(buffer, offset, length) && packet.opcode() == Opcode.RC_RDMA_READ_REQUEST)
            {
                readRequestsSent++;
            }
            fabric.aToB().send(buffer, offset, length);
        });
        fabric.b().engine().sink((buffer, offset, length) ->
        {
            if (parse(buffer, offset, length) && isReadResponse(packet.opcode()))
            {
                final int psn = packet.psn();
                if (psn == MISSING_PSN && ++missingPsnSeen <= 2)
                {
                    return; // lost
                }
                if (duplicateAnswer && missingPsnSeen == 2 && Psn.isAfter(psn, MISSING_PSN))
                {
                    fabric.bToA().send(buffer, offset, length);
                }
            }
            fabric.bToA().send(buffer, offset, length);
        });

        final SendWorkRequest read = new SendWorkRequest();
        read.opcode = WrOpcode.RDMA_READ;
        read.sendFlags = SendFlags.SIGNALED;
        read.sgl.add(a.mr.address(), READ_BYTES, a.mr.lKey());
        read.remoteAddress = b.mr.address();
        read.rKey = b.mr.rKey();
        final long startNs = fabric.clock().nanoTime();
        assertEquals(0, a.qp.postSend(read));
        assertTrue(fabric.runUntil(() -> a.sendCq.poll(a.completions, 1) == 1, 100 * TIMEOUT_NS),
            a.qp.context().describe());
        final long elapsedNs = fabric.clock().nanoTime() - startNs;

        assertEquals(WcStatus.SUCCESS, a.completions[0].status(), a.completions[0].toString());
        assertBytes(a, 0, READ_BYTES, 7);
        assertEquals(3, missingPsnSeen, "PSN " + Integer.toHexString(MISSING_PSN) + " went three times: twice lost, " +
            "then delivered");
        return elapsedNs;
    }

    private boolean parse(final DirectBuffer buffer, final int offset, final int length)
    {
        final UnsafeBuffer copy = new UnsafeBuffer(new byte[length]);
        copy.putBytes(0, buffer, offset, length);
        return validator.validate(copy, 0, length, packet) == DropReason.NONE;
    }

    private static boolean isReadResponse(final int opcode)
    {
        return opcode == Opcode.RC_RDMA_READ_RESPONSE_FIRST || opcode == Opcode.RC_RDMA_READ_RESPONSE_MIDDLE ||
            opcode == Opcode.RC_RDMA_READ_RESPONSE_LAST || opcode == Opcode.RC_RDMA_READ_RESPONSE_ONLY;
    }

    private long counter(final TransportCounter counter)
    {
        return fabric.a().engine().counters().get(counter);
    }
}
