package io.rnic.transport;

import io.rnic.verbs.AddressVector;
import io.rnic.verbs.VerbsException;
import io.rnic.wire.BthFlyweight;
import io.rnic.wire.FrameSpec;

/** Fills the addressing part of a {@link FrameSpec} from an address vector and the local port (RoCEv2 rules). */
final class Addressing
{
    /** Why an RC/UC QP's address vector with destination MAC 0 is refused. */
    static final String UNRESOLVED_MAC = "address vector: destination MAC is 0 (not resolved): resolve the " +
        "destination GID's MAC first (Endpoint.resolveMac) and set it with AddressVector.destinationMac";

    private Addressing()
    {
    }

    /** Problems with using {@code av} from {@code port}, or null. Control path. */
    static String check(final AddressVector av, final LocalPort port)
    {
        if (av.sourceGidIndex() >= port.gidCount())
        {
            return "source GID index " + av.sourceGidIndex() + " does not exist (the GID table has " +
                port.gidCount() + " entries)";
        }
        if (av.isIpv4() != port.isIpv4Gid(av.sourceGidIndex()))
        {
            return "source GID index " + av.sourceGidIndex() + " is " +
                (port.isIpv4Gid(av.sourceGidIndex()) ? "IPv4" : "IPv6") + " but the destination GID is " +
                (av.isIpv4() ? "IPv4" : "IPv6");
        }
        return null;
    }

    static void apply(
        final FrameSpec spec, final AddressVector av, final LocalPort port, final int localQpn, final int remoteQpn,
        final int ecn)
    {
        final int sgid = av.sourceGidIndex();
        if (sgid >= port.gidCount())
        {
            throw new VerbsException("source GID index " + sgid + " does not exist");
        }
        spec.ethernet(av.destinationMac(), port.mac());
        if (av.isIpv4())
        {
            spec.ipv4((int)port.gidLow(sgid), av.destinationIpv4());
        }
        else
        {
            spec.ipv6(port.gidHigh(sgid), port.gidLow(sgid), av.destinationGidHigh(), av.destinationGidLow());
        }
        spec.trafficClass(av.trafficClass() >>> 2, ecn)
            .hopLimit(av.hopLimit())
            .ecmpFlow(localQpn, remoteQpn, av.flowLabel())
            .partitionKey(BthFlyweight.DEFAULT_PKEY);
        tag(spec, port, av.serviceLevel());
    }

    /**
     * The 802.1Q tag when the port tags its frames itself: PCP = the three low bits of the SL, as a ConnectX maps them
     * (seed 003); DEI 0. Untagged otherwise.
     */
    static void tag(final FrameSpec spec, final LocalPort port, final int priority)
    {
        final int vlanId = port.vlanId();
        if (vlanId == LocalPort.NO_VLAN)
        {
            spec.noVlan();
        }
        else
        {
            spec.vlan(priority & 7, 0, vlanId);
        }
    }
}
