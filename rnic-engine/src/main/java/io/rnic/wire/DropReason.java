package io.rnic.wire;

/**
 * Why an inbound frame was silently dropped (annex CA17-24, CA17-27, CA17-33 and the base specification's
 * header checks), or {@link #NONE} when it was accepted. Each reason has its own counter
 * ({@link InboundCounters}); the wire never learns about a drop.
 */
public enum DropReason
{
    NONE("accepted"),
    FRAME_TRUNCATED("frame shorter than its Ethernet header"),
    NOT_IP("EtherType is neither IPv4 (0x0800) nor IPv6 (0x86DD) after at most one 802.1Q tag"),
    IP_HEADER_TRUNCATED("frame ends inside the IP header"),
    IP_VERSION_MISMATCH("IP version field does not match the EtherType (CA17-27)"),
    NOT_UDP("IP protocol / next header is not UDP (17) (CA17-10, CA17-16)"),
    IPV4_IHL_NOT_5("IPv4 header length is not 5 words: options are not allowed (CA17-3)"),
    IPV4_TOTAL_LENGTH("IPv4 total length inconsistent with the frame (CA17-6)"),
    IPV4_HEADER_CHECKSUM("IPv4 header checksum is wrong"),
    IPV4_FRAGMENT("IPv4 fragment: MF set or fragment offset not 0 (CA17-8)"),
    IPV4_DONT_FRAGMENT_CLEAR("IPv4 flags are not '010': DF must be set (CA17-7)"),
    IPV6_PAYLOAD_LENGTH("IPv6 payload length inconsistent with the frame (CA17-15)"),
    UDP_TRUNCATED("IP payload shorter than a UDP header"),
    NOT_ROCEV2_PORT("UDP destination port is not 4791 (CA17-20)"),
    UDP_LENGTH("UDP length does not match the IP payload length (CA17-21)"),
    BTH_TRUNCATED("UDP payload shorter than BTH + ICRC"),
    TVER_NONZERO("BTH transport version is not 0"),
    UNKNOWN_OPCODE("opcode is reserved or not supported on RoCEv2 (RD, unassigned)"),
    DEST_QP_ZERO("BTH destination QP is 0 (CA17-33)"),
    HEADERS_TRUNCATED("packet shorter than the extension headers its opcode requires"),
    UNEXPECTED_PAYLOAD("opcode carries no payload (or the CNP's 16 bytes) but the packet length says otherwise"),
    PAD_EXCEEDS_PAYLOAD("BTH pad count larger than the bytes after the headers"),
    LENGTH_NOT_ALIGNED("payload + pad is not a multiple of 4 bytes"),
    ICRC_MISMATCH("invariant CRC does not match (A17.3.3)");

    private static final DropReason[] VALUES = values();

    private final String description;

    DropReason(final String description)
    {
        this.description = description;
    }

    public String description()
    {
        return description;
    }

    public static DropReason get(final int ordinal)
    {
        return VALUES[ordinal];
    }

    public static int count()
    {
        return VALUES.length;
    }
}
