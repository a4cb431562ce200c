package io.rnic.transport;

import io.rnic.verbs.VerbsException;

import java.util.Arrays;

/**
 * The addressing of the engine's port: its MAC address and its GID table (RoCEv2 GIDs: IPv6 addresses, and IPv4
 * addresses as {@code ::ffff:a.b.c.d}), which gives the source IP of every packet through the address vector's
 * source GID index, and decides which destination IPs are ours; the 802.1Q VLAN the engine tags its frames with
 * itself, if any, and the DSCP and priority of its CNPs. Set on the control path before the engine runs.
 */
public final class LocalPort
{
    public static final int MAX_GIDS = 16;
    /** {@link #vlanId()} of a port whose frames leave untagged (or are tagged by the kernel's VLAN device). */
    public static final int NO_VLAN = -1;
    /** The largest VLAN id 802.1Q allows (4095 is reserved). */
    public static final int MAX_VLAN_ID = 4094;
    /**
     * The DSCP of CNPs by default: ConnectX's ({@code cnp_dscp} of mlx5's {@code ecn/roce_np}, 48 = CS6, network
     * control), so that a switch queues the notifications apart from, and ahead of, the data they throttle.
     */
    public static final int CNP_DSCP_DEFAULT = 48;
    /** The 802.1Q priority of CNPs on a tagged port by default: ConnectX's ({@code cnp_802p_prio}). */
    public static final int CNP_PRIORITY_DEFAULT = 6;

    private final long mac;
    private final long[] gidHigh = new long[MAX_GIDS];
    private final long[] gidLow = new long[MAX_GIDS];
    private int gidCount;
    private int ethernetMtu = 1500;
    private int vlanId = NO_VLAN;
    private int cnpDscp = CNP_DSCP_DEFAULT;
    private int cnpPriority = CNP_PRIORITY_DEFAULT;

    public LocalPort(final long mac)
    {
        this.mac = mac;
    }

    public long mac()
    {
        return mac;
    }

    public int ethernetMtu()
    {
        return ethernetMtu;
    }

    public LocalPort ethernetMtu(final int mtu)
    {
        this.ethernetMtu = mtu;
        return this;
    }

    /** The VLAN id the engine writes into an 802.1Q tag of every frame it sends, or {@link #NO_VLAN}. */
    public int vlanId()
    {
        return vlanId;
    }

    /**
     * Tags every frame the engine sends with VLAN {@code vlanId} (0 = priority-tagged only), the PCP the address
     * vector's service level (seed 003: the PCP is the SL's three low bits), or {@link #NO_VLAN}: no tag.
     *
     * @throws IllegalArgumentException for an id outside 0..4094.
     */
    public LocalPort vlanId(final int vlanId)
    {
        if (vlanId != NO_VLAN && (vlanId < 0 || vlanId > MAX_VLAN_ID))
        {
            throw new IllegalArgumentException("VLAN id " + vlanId + " out of range 0.." + MAX_VLAN_ID);
        }
        this.vlanId = vlanId;
        return this;
    }

    /** The DSCP of the CNPs this port sends. */
    public int cnpDscp()
    {
        return cnpDscp;
    }

    /** @throws IllegalArgumentException for a DSCP outside 0..63. */
    public LocalPort cnpDscp(final int dscp)
    {
        if (dscp < 0 || dscp > 63)
        {
            throw new IllegalArgumentException("CNP DSCP " + dscp + " out of range 0..63");
        }
        this.cnpDscp = dscp;
        return this;
    }

    /** The 802.1Q PCP of the CNPs this port sends when it tags its frames. */
    public int cnpPriority()
    {
        return cnpPriority;
    }

    /** @throws IllegalArgumentException for a priority outside 0..7. */
    public LocalPort cnpPriority(final int priority)
    {
        if (priority < 0 || priority > 7)
        {
            throw new IllegalArgumentException("CNP priority " + priority + " out of range 0..7");
        }
        this.cnpPriority = priority;
        return this;
    }

    /** Adds an IPv4 address as the GID {@code ::ffff:a.b.c.d}; returns its GID index. */
    public int addIpv4(final int address)
    {
        return addGid(0, 0x0000_FFFF_0000_0000L | (address & 0xFFFF_FFFFL));
    }

    /** Adds a GID (an IPv6 address); returns its index. */
    public int addGid(final long high, final long low)
    {
        if (gidCount == MAX_GIDS)
        {
            throw new VerbsException("GID table full (" + MAX_GIDS + " entries)");
        }
        gidHigh[gidCount] = high;
        gidLow[gidCount] = low;
        return gidCount++;
    }

    public int gidCount()
    {
        return gidCount;
    }

    public long gidHigh(final int index)
    {
        return gidHigh[index];
    }

    public long gidLow(final int index)
    {
        return gidLow[index];
    }

    public boolean isIpv4Gid(final int index)
    {
        return gidHigh[index] == 0 && (gidLow[index] >>> 32) == 0xFFFF;
    }

    /** Whether an IPv4 destination address is one of ours. */
    public boolean ownsIpv4(final int address)
    {
        final long low = 0x0000_FFFF_0000_0000L | (address & 0xFFFF_FFFFL);
        for (int i = 0; i < gidCount; i++)
        {
            if (gidHigh[i] == 0 && gidLow[i] == low)
            {
                return true;
            }
        }
        return false;
    }

    /** Whether an IPv6 destination address is one of ours. */
    public boolean ownsIpv6(final long high, final long low)
    {
        for (int i = 0; i < gidCount; i++)
        {
            if (gidHigh[i] == high && gidLow[i] == low)
            {
                return true;
            }
        }
        return false;
    }

    public String toString()
    {
        return "LocalPort{mac=" + Long.toHexString(mac) + ", gids=" + gidCount + " " +
            Arrays.toString(Arrays.copyOf(gidLow, gidCount)) + (vlanId != NO_VLAN ? ", vlan " + vlanId : "") + '}';
    }
}
