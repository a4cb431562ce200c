package io.rnic.wire;

/**
 * Everything {@link PacketBuilder} needs to write one RoCEv2 frame: addressing (Ethernet, optional 802.1Q tag,
 * IPv4 or IPv6, DSCP/ECN, TTL, UDP source port), the BTH and the extension-header fields. Mutable and reused:
 * a QP keeps one with its address vector filled in and changes only the per-packet fields.
 * Defaults: untagged IPv4, TTL 64, DF set, UDP checksum 0, P_Key 0xFFFF, TVer 0, pad count from the payload.
 */
public final class FrameSpec
{
    public static final int AUTO_PAD = -1;

    long destinationMac;
    long sourceMac;
    boolean vlan;
    int vlanPcp;
    int vlanDei;
    int vlanId;

    boolean ipv6;
    int ipv4Source;
    int ipv4Destination;
    long ipv6SourceHigh;
    long ipv6SourceLow;
    long ipv6DestinationHigh;
    long ipv6DestinationLow;
    int dscp;
    int ecn;
    int hopLimit = 64;
    int ipv4Identification;
    int ipv4FlagsAndFragmentOffset = Ipv4Flyweight.FLAG_DONT_FRAGMENT;
    int flowLabel;
    int udpSourcePort = UdpSourcePort.PORT_MIN;
    boolean udpChecksum;

    int opcode;
    boolean solicitedEvent;
    boolean migrationRequest;
    int padCount = AUTO_PAD;
    int transportVersion;
    int partitionKey = BthFlyweight.DEFAULT_PKEY;
    boolean fecn;
    boolean becn;
    int destinationQp;
    boolean ackRequest;
    int psn;

    long rethVirtualAddress;
    long rethRKey;
    long rethDmaLength;
    int aethSyndrome;
    int aethMsn;
    long atomicVirtualAddress;
    long atomicRKey;
    long atomicSwapOrAdd;
    long atomicCompare;
    long atomicAckOriginal;
    long dethQKey;
    int dethSourceQp;
    int immediate;
    long iethRKey;
    int fethPlacementType;
    int fethSelectivityLevel;

    public FrameSpec ethernet(final long destinationMac, final long sourceMac)
    {
        this.destinationMac = destinationMac;
        this.sourceMac = sourceMac;
        return this;
    }

    /** Adds one 802.1Q tag (PCP carries the SL on RoCE). */
    public FrameSpec vlan(final int pcp, final int dei, final int vlanId)
    {
        this.vlan = true;
        this.vlanPcp = pcp;
        this.vlanDei = dei;
        this.vlanId = vlanId;
        return this;
    }

    public FrameSpec noVlan()
    {
        this.vlan = false;
        return this;
    }

    /** IPv4 addresses as big-endian 32-bit values. */
    public FrameSpec ipv4(final int source, final int destination)
    {
        this.ipv6 = false;
        this.ipv4Source = source;
        this.ipv4Destination = destination;
        return this;
    }

    /** IPv6 addresses (GIDs) as pairs of big-endian longs. */
    public FrameSpec ipv6(final long sourceHigh, final long sourceLow, final long destinationHigh, final long destinationLow)
    {
        this.ipv6 = true;
        this.ipv6SourceHigh = sourceHigh;
        this.ipv6SourceLow = sourceLow;
        this.ipv6DestinationHigh = destinationHigh;
        this.ipv6DestinationLow = destinationLow;
        return this;
    }

    public boolean isIpv6()
    {
        return ipv6;
    }

    public FrameSpec trafficClass(final int dscp, final int ecn)
    {
        this.dscp = dscp;
        this.ecn = ecn;
        return this;
    }

    /** Only the ECN bits ({@link Ecn}), the DSCP kept: congestion control turned on or off for a connected QP. */
    public FrameSpec ecn(final int ecn)
    {
        this.ecn = ecn;
        return this;
    }

    public int ecn()
    {
        return ecn;
    }

    /** IPv4 TTL or IPv6 hop limit. */
    public FrameSpec hopLimit(final int hopLimit)
    {
        this.hopLimit = hopLimit;
        return this;
    }

    public FrameSpec ipv4Identification(final int identification)
    {
        this.ipv4Identification = identification;
        return this;
    }

    /** IPv4 flags and fragment offset; RoCEv2 requires DF only (0x4000), the default. For tests of bad frames. */
    public FrameSpec ipv4FlagsAndFragmentOffset(final int value)
    {
        this.ipv4FlagsAndFragmentOffset = value;
        return this;
    }

    public FrameSpec flowLabel(final int flowLabel)
    {
        this.flowLabel = flowLabel;
        return this;
    }

    /**
     * Sets the IPv6 flow label and the UDP source port of a connected QP as Linux does for RoCEv2: from the
     * application's flow label when it gives one (non-zero), otherwise from the two QPNs (see {@link UdpSourcePort}).
     */
    public FrameSpec ecmpFlow(final int localQpn, final int remoteQpn, final int applicationFlowLabel)
    {
        final int label = applicationFlowLabel & UdpSourcePort.FLOW_LABEL_MASK;
        final int flow = label != 0 ? label : UdpSourcePort.flowLabel(localQpn, remoteQpn);
        this.flowLabel = flow;
        this.udpSourcePort = UdpSourcePort.fromFlowLabel(flow);
        return this;
    }

    public FrameSpec udpSourcePort(final int port)
    {
        this.udpSourcePort = port;
        return this;
    }

    /** Whether to fill in a real UDP checksum; RoCEv2 senders normally leave it 0 (A17.3.2.4). */
    public FrameSpec udpChecksum(final boolean compute)
    {
        this.udpChecksum = compute;
        return this;
    }

    public FrameSpec bth(final int opcode, final int destinationQp, final int psn)
    {
        this.opcode = opcode;
        this.destinationQp = destinationQp;
        this.psn = psn;
        return this;
    }

    public int opcode()
    {
        return opcode;
    }

    public FrameSpec opcode(final int opcode)
    {
        this.opcode = opcode;
        return this;
    }

    public FrameSpec destinationQp(final int qpn)
    {
        this.destinationQp = qpn;
        return this;
    }

    public FrameSpec psn(final int psn)
    {
        this.psn = psn;
        return this;
    }

    public FrameSpec solicitedEvent(final boolean value)
    {
        this.solicitedEvent = value;
        return this;
    }

    public FrameSpec migrationRequest(final boolean value)
    {
        this.migrationRequest = value;
        return this;
    }

    public FrameSpec ackRequest(final boolean value)
    {
        this.ackRequest = value;
        return this;
    }

    public FrameSpec partitionKey(final int pkey)
    {
        this.partitionKey = pkey;
        return this;
    }

    public FrameSpec fecnBecn(final boolean fecn, final boolean becn)
    {
        this.fecn = fecn;
        this.becn = becn;
        return this;
    }

    /** Pad count 0..3, or {@link #AUTO_PAD} (default) to pad the payload to a multiple of 4. */
    public FrameSpec padCount(final int padCount)
    {
        this.padCount = padCount;
        return this;
    }

    /** Must be 0 on the wire; settable only to build invalid frames for tests. */
    public FrameSpec transportVersion(final int version)
    {
        this.transportVersion = version;
        return this;
    }

    public FrameSpec reth(final long virtualAddress, final long rKey, final long dmaLength)
    {
        this.rethVirtualAddress = virtualAddress;
        this.rethRKey = rKey;
        this.rethDmaLength = dmaLength;
        return this;
    }

    public FrameSpec aeth(final int syndrome, final int msn)
    {
        this.aethSyndrome = syndrome;
        this.aethMsn = msn;
        return this;
    }

    public FrameSpec atomicEth(final long virtualAddress, final long rKey, final long swapOrAdd, final long compare)
    {
        this.atomicVirtualAddress = virtualAddress;
        this.atomicRKey = rKey;
        this.atomicSwapOrAdd = swapOrAdd;
        this.atomicCompare = compare;
        return this;
    }

    public FrameSpec atomicAckEth(final long originalRemoteData)
    {
        this.atomicAckOriginal = originalRemoteData;
        return this;
    }

    public FrameSpec deth(final long qKey, final int sourceQp)
    {
        this.dethQKey = qKey;
        this.dethSourceQp = sourceQp;
        return this;
    }

    public FrameSpec immediate(final int immediate)
    {
        this.immediate = immediate;
        return this;
    }

    public FrameSpec ieth(final long rKey)
    {
        this.iethRKey = rKey;
        return this;
    }

    /** The FETH of a FLUSH: placement type and selectivity level ({@link FethFlyweight}). */
    public FrameSpec feth(final int placementType, final int selectivityLevel)
    {
        this.fethPlacementType = placementType;
        this.fethSelectivityLevel = selectivityLevel;
        return this;
    }
}
