package io.rnic.transport;

import io.rnic.device.QueuePair;
import io.rnic.sim.LinkConditions;
import io.rnic.sim.TwoNodeFabric;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.VerbsException;
import io.rnic.verbs.WrOpcode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A destination MAC of 0 is a MAC nobody resolved: a veth delivers such frames anyway, a real NIC's peer never sees
 * them. The mistake is refused where it is made, at modify_qp (RC, UC) or at post time (UD), naming the fix.
 */
class UnresolvedMacTest extends ArenaScopedTest
{
    @ParameterizedTest
    @EnumSource(value = QpType.class, names = { "RC", "UC" })
    void shouldRefuseRtrWithAnUnresolvedMac(final QpType type)
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection a = new Connection(fabric.a(), arena, type, 4096, AccessFlags.ALL);
        final Connection b = new Connection(fabric.b(), arena, type, 4096, AccessFlags.ALL);

        final VerbsException refused = assertThrows(VerbsException.class,
            () -> a.connect(b, TwoNodeFabric.IP_B, 0L, PathMtu.MTU_1024, 0x10_0000, AccessFlags.ALL));
        assertTrue(refused.getMessage().contains("destination MAC is 0"), refused.getMessage());
        assertTrue(refused.getMessage().contains("Endpoint.resolveMac"), refused.getMessage());
        assertEquals(QpState.INIT, a.qp.state(), "the QP stays where it was");

        a.connect(b, TwoNodeFabric.IP_B, TwoNodeFabric.MAC_B, PathMtu.MTU_1024, 0x10_0000, AccessFlags.ALL);
        assertEquals(QpState.RTS, a.qp.state());
    }

    @Test
    void shouldRefuseAUdSendToAnUnresolvedMac()
    {
        final TwoNodeFabric fabric = new TwoNodeFabric(new LinkConditions(), 1);
        final Connection[] pair = Connection.pair(fabric, arena, QpType.UD, 4096, PathMtu.MTU_1024, 0);
        final SendWorkRequest send = new SendWorkRequest();
        send.opcode = WrOpcode.SEND;
        send.sgl.add(pair[0].mr.address(), 64, pair[0].mr.lKey());
        send.udRemoteQpn = pair[1].qp.qpn();
        send.udAddress.destinationIpv4(TwoNodeFabric.IP_B).sourceGidIndex(0);

        assertEquals(QueuePair.POST_INVALID, pair[0].qp.postSend(send));
        send.udAddress.destinationMac(TwoNodeFabric.MAC_B);
        assertEquals(QueuePair.POST_OK, pair[0].qp.postSend(send));
    }
}
