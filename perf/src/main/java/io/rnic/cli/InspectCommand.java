package io.rnic.cli;

import io.rnic.pcap.PcapReader;
import io.rnic.tools.UsageException;
import io.rnic.tools.options.CommandLine;
import io.rnic.tools.options.GivenOption;
import io.rnic.wire.EthernetFlyweight;
import io.rnic.wire.FrameFields;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code rnic inspect [--json] [--roce-only] FILE...}: a RoCEv2-aware capture checker. For every frame: the decoded
 * headers, whether the ICRC is right (tshark 4.0 does not check it), and the verdict our inbound validation
 * reaches. {@code --json} prints one object per frame with the field names of the shared vectors' {@code expected}
 * objects plus {@code verdict} and {@code drop_reason}. {@code --roce-only} leaves out frames that are not RoCEv2
 * at all (not IP, not UDP, not port 4791) so that a mixed capture (TCP exchange, ARP) can be checked.
 * Exit status 0 when every (considered) frame is accepted, 1 otherwise.
 */
final class InspectCommand
{
    private static final int LINKTYPE_ETHERNET = 1;
    private static final int LINKTYPE_RAW = 101;
    private static final int LINKTYPE_LINUX_SLL = 113;
    private static final int LINKTYPE_LINUX_SLL2 = 276;
    private static final List<String> NOT_ROCE = List.of("NOT_IP", "NOT_UDP", "NOT_ROCEV2_PORT");

    private InspectCommand()
    {
    }

    static int run(final String[] args, final PrintStream out, final PrintStream err) throws IOException
    {
        boolean json = false;
        boolean roceOnly = false;
        final List<Path> files = new ArrayList<>();
        final CommandLine line = CommandLine.parse("inspect", args);
        for (final GivenOption given : line.options())
        {
            switch (given.option())
            {
                case JSON -> json = true;
                case ROCE_ONLY -> roceOnly = true;
                default -> throw given.notHandled("inspect");
            }
        }
        for (final String file : line.operands())
        {
            files.add(Path.of(file));
        }
        if (files.isEmpty())
        {
            throw new UsageException("no capture file given");
        }
        for (final Path file : files)
        {
            if (Files.isDirectory(file))
            {
                throw new IOException(file + ": is a directory, not a capture file");
            }
            if (!Files.isReadable(file))
            {
                throw new IOException(file + ": no such file or not readable");
            }
        }

        final FrameFields decoder = new FrameFields();
        final UnsafeBuffer ethernet = new UnsafeBuffer(new byte[262_144 + EthernetFlyweight.LENGTH]);
        final Map<String, Integer> verdicts = new TreeMap<>();
        int considered = 0;
        int dropped = 0;
        int badIcrc = 0;
        for (final Path file : files)
        {
            try (PcapReader reader = PcapReader.open(file))
            {
                while (reader.next())
                {
                    final int length = asEthernet(reader.linkType(), reader.frame(), reader.frameLength(), ethernet);
                    final Map<String, Object> fields;
                    if (length < 0)
                    {
                        fields = new java.util.LinkedHashMap<>();
                        fields.put("verdict", "drop");
                        fields.put("drop_reason", "UNSUPPORTED_LINKTYPE_" + reader.linkType());
                    }
                    else
                    {
                        fields = decoder.decode(ethernet, 0, length);
                    }
                    final String reason = (String)fields.get("drop_reason");
                    if (roceOnly && reason != null && NOT_ROCE.contains(reason))
                    {
                        continue;
                    }
                    considered++;
                    if (reason != null)
                    {
                        dropped++;
                    }
                    if (Boolean.FALSE.equals(fields.get("icrc_ok")))
                    {
                        badIcrc++;
                    }
                    verdicts.merge(reason == null ? "accept" : reason, 1, Integer::sum);

                    final Map<String, Object> record = new java.util.LinkedHashMap<>();
                    if (files.size() > 1)
                    {
                        record.put("file", file.toString());
                    }
                    record.put("frame", reader.frameNumber());
                    record.putAll(fields);
                    out.println(json ? JsonWriter.write(record) : describe(record));
                }
            }
        }

        if (!json)
        {
            out.printf("%d frames: %d accepted, %d dropped, %d with a bad ICRC %s%n",
                considered, considered - dropped, dropped, badIcrc, verdicts);
        }
        return dropped == 0 ? 0 : 1;
    }

    /**
     * Copies a frame into {@code ethernet} as an Ethernet frame: as it is for link type 1, behind a synthetic
     * Ethernet header (zero MACs) for Linux cooked captures and raw IP. Returns the length, or -1 if unsupported.
     */
    static int asEthernet(final int linkType, final DirectBuffer frame, final int length, final UnsafeBuffer ethernet)
    {
        final int l3Offset;
        final int etherType;
        switch (linkType)
        {
            case LINKTYPE_ETHERNET ->
            {
                ethernet.putBytes(0, frame, 0, length);
                return length;
            }
            case LINKTYPE_LINUX_SLL ->
            {
                if (length < 16)
                {
                    return -1;
                }
                l3Offset = 16;
                etherType = frame.getShort(14, ByteOrder.BIG_ENDIAN) & 0xFFFF;
            }
            case LINKTYPE_LINUX_SLL2 ->
            {
                if (length < 20)
                {
                    return -1;
                }
                l3Offset = 20;
                etherType = frame.getShort(0, ByteOrder.BIG_ENDIAN) & 0xFFFF;
            }
            case LINKTYPE_RAW ->
            {
                if (length < 1)
                {
                    return -1;
                }
                l3Offset = 0;
                etherType = (frame.getByte(0) & 0xF0) == 0x60 ?
                    EthernetFlyweight.ETHERTYPE_IPV6 : EthernetFlyweight.ETHERTYPE_IPV4;
            }
            default ->
            {
                return -1;
            }
        }
        ethernet.setMemory(0, 12, (byte)0);
        ethernet.putShort(12, (short)etherType, ByteOrder.BIG_ENDIAN);
        ethernet.putBytes(EthernetFlyweight.LENGTH, frame, l3Offset, length - l3Offset);
        return EthernetFlyweight.LENGTH + length - l3Offset;
    }

    private static String describe(final Map<String, Object> f)
    {
        final StringBuilder sb = new StringBuilder(160);
        sb.append('#').append(f.get("frame"));
        if (f.containsKey("file"))
        {
            sb.append(' ').append(f.get("file"));
        }
        sb.append(' ').append(f.get("frame_len")).append("B");
        if (f.containsKey("ipver"))
        {
            sb.append(" IPv").append(f.get("ipver")).append(' ').append(f.get("ip_src")).append(" > ")
                .append(f.get("ip_dst"));
            sb.append(" dscp=").append(f.get("ip_dscp")).append(" ecn=").append(f.get("ip_ecn"));
        }
        if (f.get("vlan") instanceof Map<?, ?> vlan)
        {
            sb.append(" vlan=").append(vlan.get("vid")).append(" pcp=").append(vlan.get("pcp"));
        }
        if (f.containsKey("udp_sport"))
        {
            sb.append(" udp ").append(f.get("udp_sport")).append(" > ").append(f.get("udp_dport"));
        }
        if (f.containsKey("opcode"))
        {
            sb.append(String.format(" %s(0x%02x) qp=0x%06x psn=%d", f.get("opcode_name"), (Integer)f.get("opcode"),
                (Integer)f.get("dest_qp"), (Integer)f.get("psn")));
            if ((Integer)f.get("ack_req") == 1)
            {
                sb.append(" A");
            }
            if ((Integer)f.get("se") == 1)
            {
                sb.append(" SE");
            }
            if ((Integer)f.get("becn") == 1)
            {
                sb.append(" BECN");
            }
            appendIfPresent(sb, f, "feth_placement_type", "placement");
            appendIfPresent(sb, f, "feth_selectivity_level", "selectivity");
            appendIfPresent(sb, f, "reth_va", "va");
            appendIfPresent(sb, f, "reth_rkey", "rkey");
            appendIfPresent(sb, f, "reth_dmalen", "len");
            appendIfPresent(sb, f, "aeth_type", "");
            appendIfPresent(sb, f, "nak_name", "");
            appendIfPresent(sb, f, "aeth_msn", "msn");
            appendIfPresent(sb, f, "atomic_va", "va");
            appendIfPresent(sb, f, "atomic_swap_add", "swap/add");
            appendIfPresent(sb, f, "atomic_compare", "cmp");
            appendIfPresent(sb, f, "atomic_orig", "orig");
            appendIfPresent(sb, f, "deth_qkey", "qkey");
            appendIfPresent(sb, f, "deth_src_qp", "srcqp");
            appendIfPresent(sb, f, "immdt", "imm");
            appendIfPresent(sb, f, "ieth_rkey", "inv_rkey");
            appendIfPresent(sb, f, "payload_len", "payload");
            if (f.containsKey("icrc_ok"))
            {
                sb.append(Boolean.TRUE.equals(f.get("icrc_ok")) ? " icrc=ok" :
                    " icrc=BAD(wire " + f.get("icrc") + ", computed " + f.get("icrc_computed") + ")");
            }
        }
        sb.append(" -> ").append("accept".equals(f.get("verdict")) ? "accept" : "DROP " + f.get("drop_reason"));
        return sb.toString();
    }

    private static void appendIfPresent(final StringBuilder sb, final Map<String, Object> f, final String key,
        final String label)
    {
        if (f.containsKey(key))
        {
            sb.append(' ');
            if (!label.isEmpty())
            {
                sb.append(label).append('=');
            }
            sb.append(f.get(key));
        }
    }
}
