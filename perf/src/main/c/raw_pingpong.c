/*
 * The floor of the AF_PACKET path: a ping-pong of raw Ethernet frames over a (veth) interface, busy-polling, no
 * protocol at all. The client times each round trip. Receiving either by recvfrom() on a non-blocking socket (a
 * system call per poll), or with -m from a PACKET_MMAP receive ring (TPACKET_V2) polled in user space, as rnic's
 * AF_PACKET port does — the stricter floor. Sending is send() either way.
 *
 *   raw_pingpong -i IFACE -s [-m]                  server: echoes every test frame back to its sender
 *   raw_pingpong -i IFACE -c PEER_MAC [-m] [-n ITERS] [-w WARMUP] [-l SIZE] [-C CPU]
 */
#include "pingpong_common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define ETHERTYPE_TEST 0x88b5 /* IEEE local experimental: nothing else on the link uses it */
#define TIMEOUT_NS 5000000000ull

static int open_socket(const char *iface, int *ifindex)
{
    int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETHERTYPE_TEST));
    if (fd < 0) {
        fprintf(stderr, "raw_pingpong: socket: %s%s\n", strerror(errno),
            errno == EPERM ? " (needs root or CAP_NET_RAW)" : "");
        exit(2);
    }
    *ifindex = (int)if_nametoindex(iface);
    if (*ifindex == 0) {
        fprintf(stderr, "raw_pingpong: no interface named %s\n", iface);
        exit(2);
    }
    struct sockaddr_ll address = { .sll_family = AF_PACKET, .sll_protocol = htons(ETHERTYPE_TEST),
        .sll_ifindex = *ifindex };
    if (bind(fd, (struct sockaddr *)&address, sizeof(address)) != 0) {
        fprintf(stderr, "raw_pingpong: bind %s: %s\n", iface, strerror(errno));
        exit(2);
    }
    return fd;
}

#define RING_FRAME 2048
#define RING_FRAMES 1024
static unsigned char *ring;   /* the mmap'ed TPACKET_V2 receive ring, or NULL for recvfrom() */
static unsigned ring_index;

static void map_ring(int fd)
{
    int version = TPACKET_V2;
    int ignore_outgoing = 1;
    struct tpacket_req request = { .tp_block_size = 4096 * 4, .tp_frame_size = RING_FRAME,
        .tp_block_nr = RING_FRAMES / 8, .tp_frame_nr = RING_FRAMES };
    if (setsockopt(fd, SOL_PACKET, PACKET_VERSION, &version, sizeof(version)) != 0 ||
        setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &request, sizeof(request)) != 0) {
        perror("raw_pingpong: PACKET_RX_RING");
        exit(2);
    }
    /* our own transmissions are not looped back into the ring (Linux 4.20+) */
    setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &ignore_outgoing, sizeof(ignore_outgoing));
    ring = mmap(NULL, (size_t)request.tp_block_size * request.tp_block_nr, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ring == MAP_FAILED) {
        perror("raw_pingpong: mmap");
        exit(2);
    }
}

/* Busy-polls the ring's next slot for one incoming test frame; returns its length, 0 on timeout. */
static ssize_t receive_ring(unsigned char *frame, size_t capacity)
{
    const uint64_t deadline = now_ns() + TIMEOUT_NS;
    for (;;) {
        struct tpacket2_hdr *header = (struct tpacket2_hdr *)(ring + (size_t)ring_index * RING_FRAME);
        if (__atomic_load_n(&header->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER) {
            const struct sockaddr_ll *from =
                (const struct sockaddr_ll *)((unsigned char *)header + TPACKET_ALIGN(sizeof(*header)));
            size_t n = header->tp_snaplen < capacity ? header->tp_snaplen : capacity;
            const int outgoing = from->sll_pkttype == PACKET_OUTGOING;
            memcpy(frame, (unsigned char *)header + header->tp_mac, n);
            __atomic_store_n(&header->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
            ring_index = (ring_index + 1) % RING_FRAMES;
            if (!outgoing)
                return (ssize_t)n;
            continue;
        }
        if (now_ns() > deadline)
            return 0;
    }
}

/* Busy-polls for one incoming test frame; returns its length, 0 on timeout. */
static ssize_t receive(int fd, unsigned char *frame, size_t capacity)
{
    if (ring)
        return receive_ring(frame, capacity);
    const uint64_t deadline = now_ns() + TIMEOUT_NS;
    for (;;) {
        struct sockaddr_ll from;
        socklen_t from_length = sizeof(from);
        ssize_t n = recvfrom(fd, frame, capacity, 0, (struct sockaddr *)&from, &from_length);
        if (n > 0 && from.sll_pkttype != PACKET_OUTGOING)
            return n;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            perror("raw_pingpong: recvfrom");
            exit(2);
        }
        if (now_ns() > deadline)
            return 0;
    }
}

static void send_frame(int fd, const unsigned char *frame, size_t length)
{
    if (send(fd, frame, length, 0) != (ssize_t)length) {
        perror("raw_pingpong: send");
        exit(2);
    }
}

static int parse_mac(const char *text, unsigned char *mac)
{
    return sscanf(text, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1], &mac[2], &mac[3], &mac[4], &mac[5]) == 6;
}

int main(int argc, char **argv)
{
    const char *iface = NULL, *peer = NULL;
    int server = 0, cpu = -1, mmap_ring = 0, opt;
    size_t iterations = 100000, warmup = 10000, size = 64;
    while ((opt = getopt(argc, argv, "i:sc:n:w:l:C:m")) != -1) {
        switch (opt) {
        case 'm': mmap_ring = 1; break;
        case 'i': iface = optarg; break;
        case 's': server = 1; break;
        case 'c': peer = optarg; break;
        case 'n': iterations = strtoul(optarg, NULL, 10); break;
        case 'w': warmup = strtoul(optarg, NULL, 10); break;
        case 'l': size = strtoul(optarg, NULL, 10); break;
        case 'C': cpu = atoi(optarg); break;
        default:
            fprintf(stderr, "usage: raw_pingpong -i IFACE (-s | -c PEER_MAC) [-m] [-n N] [-w N] [-l SIZE] [-C CPU]\n");
            return 2;
        }
    }
    if (!iface || server == (peer != NULL) || size < 60 || size > 1514 || iterations == 0) {
        fprintf(stderr, "usage: raw_pingpong -i IFACE (-s | -c PEER_MAC) [-m] [-n N] [-w N] [-l 60..1514] [-C CPU]\n");
        return 2;
    }
    pin(cpu);
    int ifindex;
    const int fd = open_socket(iface, &ifindex);
    if (mmap_ring)
        map_ring(fd);
    unsigned char frame[2048], reply[2048];

    if (server) {
        for (;;) {
            const ssize_t n = receive(fd, frame, sizeof(frame));
            if (n == 0)
                continue; /* idle: keep serving until killed */
            unsigned char swap[ETH_ALEN];
            memcpy(swap, frame, ETH_ALEN);
            memcpy(frame, frame + ETH_ALEN, ETH_ALEN);
            memcpy(frame + ETH_ALEN, swap, ETH_ALEN);
            send_frame(fd, frame, (size_t)n);
        }
    }

    unsigned char peer_mac[ETH_ALEN];
    if (!parse_mac(peer, peer_mac)) {
        fprintf(stderr, "raw_pingpong: '%s' is not a MAC address\n", peer);
        return 2;
    }
    memset(frame, 0xab, sizeof(frame));
    memcpy(frame, peer_mac, ETH_ALEN);
    memset(frame + ETH_ALEN, 0, ETH_ALEN); /* the kernel does not fill the source: any value passes on a veth */
    frame[12] = ETHERTYPE_TEST >> 8;
    frame[13] = ETHERTYPE_TEST & 0xff;
    uint64_t *rtt = calloc(iterations, sizeof(uint64_t));
    for (size_t i = 0; i < warmup + iterations; i++) {
        memcpy(frame + 14, &i, sizeof(i));
        const uint64_t start = now_ns();
        send_frame(fd, frame, size);
        if (receive(fd, reply, sizeof(reply)) == 0) {
            fprintf(stderr, "raw_pingpong: no reply to frame %zu within 5 s (is the server running?)\n", i);
            return 1;
        }
        if (i >= warmup)
            rtt[i - warmup] = now_ns() - start;
    }
    report(mmap_ring ? "raw-afpacket-mmap" : "raw-afpacket", size, rtt, iterations);
    return 0;
}
