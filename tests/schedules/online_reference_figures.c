/*
 * Forward counts of the reference online checkpointing (the Revolve C++
 * package of Griewank, Walther and Stumm: Online_r2, Online_r3, then its
 * Wang-Moin-Iaccarino class beyond beta(C, 3)), counted as ebb counts them
 * (first sweep included, x_{n-1} at hand after TURN). ebb's online schedule
 * must never need more, nor fewer than offline Revolve. The figures came
 * from driving the reference with n unknown and reversing its checkpoints
 * with the binomial schedule per interval, as ebb does (docs/online.md).
 */
#include "schedules/online.h"
#include "support/schedule_support.h"

static const struct {
    int32_t c;
    int64_t n;
    int64_t reference;
} rows[] = {
    /* The figures. */
    {64, 2143, 4222}, {20, 1771, 5061}, {10, 1000, 3637}, {50, 100000, 379888},
    {20, 12000, 54999},
    /* Around beta(C, 2) and beta(C, 3). */
    {2, 5, 7}, {2, 6, 9}, {2, 7, 15}, {2, 9, 18}, {2, 10, 21}, {2, 11, 31},
    {4, 14, 23}, {4, 15, 25}, {4, 16, 31}, {4, 34, 82}, {4, 35, 85}, {4, 36, 95},
    {7, 35, 62}, {7, 36, 64}, {7, 37, 70}, {7, 119, 313}, {7, 120, 316}, {7, 121, 343},
    {16, 152, 287}, {16, 153, 289}, {16, 154, 295}, {16, 968, 2734}, {16, 969, 2737},
    {16, 970, 2779}, {33, 594, 1154}, {33, 595, 1156}, {33, 596, 1162}, {33, 7139, 20788},
    {33, 7140, 20791}, {33, 7141, 20950}, {100, 5150, 10199}, {100, 5151, 10201},
    {100, 5152, 10207}, {100, 176850, 525298}, {100, 176851, 525301}, {100, 176852, 527260},
    {200, 20300, 40399}, {200, 20301, 40401}, {200, 20302, 40407},
    /* Inside beta(C, 3), where a drop chosen by the next stop alone (no
     * look-ahead to the next store) leaves a one step worse layout. */
    {6, 53, 127}, {6, 54, 128}, {6, 55, 130}, {6, 56, 136}, {6, 57, 137}, {6, 58, 139},
    {10, 255, 691}, {10, 256, 692}, {10, 257, 694}, {10, 258, 700}, {10, 259, 701},
    {10, 260, 703}, {12, 239, 616}, {12, 240, 617}, {12, 241, 619}, {12, 242, 625},
    {12, 243, 626}, {12, 244, 628},
    /* Beyond beta(C, 3). */
    {7, 300, 1057}, {12, 5000, 23093}, {25, 30000, 138434},
};

Test(online, never_more_than_the_reference_package, .timeout = 300)
{
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        int64_t ours = 0;
        cr_assert_eq(ebb_online_forward_count(rows[i].n, rows[i].c, &ours), EBB_OK, "%s",
                     ebb_last_error());
        cr_assert_leq(ours, rows[i].reference, "C=%d n=%lld: ours %lld, reference %lld",
                      rows[i].c, (long long)rows[i].n, (long long)ours,
                      (long long)rows[i].reference);
        cr_assert_geq(ours, revolve_count(rows[i].n, rows[i].c), "C=%d n=%lld", rows[i].c,
                      (long long)rows[i].n);
    }
}
