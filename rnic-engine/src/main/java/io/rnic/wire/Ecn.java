package io.rnic.wire;

/** The two ECN bits of the IPv4 TOS / IPv6 traffic class (RFC 3168), as RoCEv2 congestion control uses them. */
public final class Ecn
{
    /** Not ECN-capable: a congested switch drops the packet rather than mark it. */
    public static final int NOT_ECT = 0b00;
    public static final int ECT_1 = 0b01;
    /** ECN-capable transport (0): what a RoCEv2 sender with congestion control on marks (annex A17.9.3). */
    public static final int ECT_0 = 0b10;
    /** Congestion experienced: set by a switch whose queue is building up; the receiver answers with a CNP. */
    public static final int CE = 0b11;

    private Ecn()
    {
    }
}
