package io.rnic.testing;

import io.rnic.wire.DropReason;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/** The frames of {@code shared/vectors/*.jsonl}: made by scapy, rxe and a ConnectX-4, not by us. */
public final class TestVectors
{
    public record Vector(String name, String caseName, byte[] frame, Map<String, Object> expected, boolean valid,
        String dropReason)
    {
        public String toString()
        {
            return name;
        }
    }

    /** What each invalid case of {@code invalid.jsonl} must be dropped for (its text reason, as our enum). */
    public static final Map<String, DropReason> INVALID_CASE_REASONS = Map.ofEntries(
        Map.entry("bad_icrc", DropReason.ICRC_MISMATCH),
        Map.entry("wrong_udp_dport", DropReason.NOT_ROCEV2_PORT),
        Map.entry("ipv4_ihl_not_5", DropReason.IPV4_IHL_NOT_5),
        Map.entry("ipv4_fragment", DropReason.IPV4_FRAGMENT),
        Map.entry("bth_tver_nonzero", DropReason.TVER_NONZERO),
        Map.entry("dest_qp_zero", DropReason.DEST_QP_ZERO),
        Map.entry("truncated_bth", DropReason.BTH_TRUNCATED),
        Map.entry("wrong_ip_version", DropReason.IP_VERSION_MISMATCH),
        Map.entry("pad_gt_payload", DropReason.PAD_EXCEEDS_PAYLOAD),
        Map.entry("udp_len_mismatch", DropReason.UDP_LENGTH),
        Map.entry("icrc_big_endian", DropReason.ICRC_MISMATCH));

    private TestVectors()
    {
    }

    public static List<Vector> valid()
    {
        final List<Vector> vectors = new ArrayList<>(load("vectors.jsonl"));
        vectors.addAll(load("hw_captured.jsonl"));
        return vectors;
    }

    public static List<Vector> invalid()
    {
        return load("invalid.jsonl");
    }

    @SuppressWarnings("unchecked")
    public static List<Vector> load(final String fileName)
    {
        final Path path = SharedFiles.vectors(fileName);
        try
        {
            final List<Vector> vectors = new ArrayList<>();
            for (final String line : Files.readAllLines(path))
            {
                if (line.isBlank())
                {
                    continue;
                }
                final Map<String, Object> o = Json.parseObject(line);
                final String name = (String)o.get("name");
                vectors.add(new Vector(
                    name,
                    (String)o.getOrDefault("case", name),
                    HexFormat.of().parseHex((String)o.get("frame_hex")),
                    (Map<String, Object>)o.getOrDefault("expected", Map.of()),
                    Boolean.TRUE.equals(o.get("valid")),
                    (String)o.get("drop_reason")));
            }
            return vectors;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read test vectors " + path, ex);
        }
    }
}
