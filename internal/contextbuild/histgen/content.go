package histgen

// Content tables: the words, sentences and messages the generator draws
// from. They are read-only values; nothing here is mutated.

const module = "github.com/acme/ledgerd"

// nouns and verbs make identifiers and comments of the generated Go code.
var nouns = []string{
	"entry", "batch", "segment", "cursor", "offset", "record", "index", "window",
	"journal", "manifest", "lease", "shard", "bucket", "queue", "peer", "session",
	"span", "frame", "block", "page", "snapshot", "writer", "reader", "buffer",
	"tenant", "account", "posting", "balance", "transfer", "hold", "ticket", "epoch",
}

var verbs = []string{
	"flush", "append", "seal", "rotate", "compact", "load", "open", "scan",
	"merge", "split", "encode", "decode", "verify", "replay", "trim", "sync",
	"reserve", "release", "drain", "apply", "reconcile", "settle", "prune", "index",
}

// pastTense gives the metric suffix of a verb ("flush" -> "Flushed").
func pastTense(v string) string {
	switch {
	case v == "split":
		return "Split"
	case v == "index":
		return "Indexed"
	case v[len(v)-1] == 'e':
		return title(v) + "d"
	case v == "scan" || v == "trim":
		return title(v) + v[len(v)-1:] + "ed"
	case v[len(v)-1] == 'y':
		return title(v[:len(v)-1]) + "ied"
	}
	return title(v) + "ed"
}

func title(s string) string {
	if s == "" {
		return s
	}
	b := []byte(s)
	if b[0] >= 'a' && b[0] <= 'z' {
		b[0] -= 'a' - 'A'
	}
	return string(b)
}

// docPhrases complete a doc comment "<name> <phrase>".
var docPhrases = []string{
	"writes the pending {n}s to disk and advances the cursor past them.",
	"returns the {n} that holds offset, or an error wrapping ErrNotFound.",
	"checks that every {n} of the segment carries a valid checksum.",
	"moves the {n} to the sealed state; a sealed {n} is never written again.",
	"merges adjacent {n}s whose combined size stays under the limit.",
	"reads the {n} header and the entries that follow it, stopping at the first torn write.",
	"is called with s.mu held; it must not block on the network.",
	"drops {n}s older than the retention window, oldest first.",
	"replays the journal from the last checkpoint and rebuilds the in-memory {n}s.",
	"settles the holds of a {n} in offset order so that balances never go negative.",
}

var docSecond = []string{
	"It is safe to call concurrently with readers.",
	"Callers must not retain the returned slice.",
	"The caller owns ctx; cancelling it abandons the {n} without sealing it.",
	"A zero {n} is valid and means nothing to do.",
	"See docs/architecture.md for the on-disk layout.",
	"It returns early when the store is closed.",
	"Errors are wrapped with the {n} id so that logs name what failed.",
}

// markdown sentences for README, docs and notes; {n} is a noun.
var mdSentences = []string{
	"ledgerd keeps an append-only journal of postings and serves balances over HTTP.",
	"Each {n} is written to the current segment file and fsynced before the request is acknowledged.",
	"Segments rotate at 64 MiB; a sealed segment is immutable and can be copied by backup tools.",
	"The cursor records the last offset that was applied to the balance index.",
	"On start the daemon replays every {n} after the cursor, so a crash never loses an acknowledged posting.",
	"Compaction merges old segments in the background and never blocks writers.",
	"Metrics are exported at /metrics in the Prometheus text format.",
	"Configuration comes from flags, then the environment (LEDGERD_*), then built-in defaults.",
	"Holds reserve funds for a transfer until it is settled or released.",
	"The {n} format is versioned; readers refuse a version they do not know.",
	"Operators can drain a node with SIGTERM: it stops accepting writes, flushes, and exits.",
	"Tests that need a real segment directory use t.TempDir and never share it.",
	"The HTTP layer is thin: handlers decode, call the store, encode, nothing else.",
	"Tenants are isolated by prefix; a key of one tenant can never address another's {n}.",
}

var mdHeadings = []string{
	"Overview", "Layout on disk", "Durability", "Configuration", "Operations",
	"Compaction", "Recovery", "Metrics", "Testing", "Release process", "Troubleshooting",
}

// zhMessages are the Chinese texts of messages_zh.go (key, text).
var zhMessages = [][2]string{
	{"ledger.append.failed", "追加记录失败：%v"},
	{"ledger.batch.full", "批次已满（最多 %d 条记录），请先刷新"},
	{"ledger.flush.failed", "批量写入失败，请稍后重试"},
	{"ledger.segment.sealed", "段文件 %s 已封存，不能再写入"},
	{"ledger.segment.corrupt", "段文件 %s 在偏移 %d 处校验失败"},
	{"ledger.cursor.behind", "游标落后于日志：%d < %d"},
	{"ledger.hold.expired", "冻结已过期，转账未完成"},
	{"ledger.balance.negative", "余额不能为负数：账户 %s"},
	{"ledger.tenant.unknown", "未知的租户：%s"},
	{"config.read.failed", "配置文件无法读取：%v"},
	{"config.port.invalid", "端口号无效：%q"},
	{"config.port.busy", "端口已被占用，请换一个端口"},
	{"server.shutdown", "服务正在关闭，请稍后再试"},
	{"server.overloaded", "服务器繁忙，请求已被拒绝"},
	{"auth.token.expired", "访问令牌已过期，请重新登录"},
	{"auth.token.invalid", "访问令牌无效"},
	{"retry.giving_up", "重试 %d 次后放弃：%v"},
	{"compaction.started", "开始压缩旧段文件"},
	{"compaction.done", "压缩完成，释放了 %s 空间"},
	{"replay.progress", "正在重放日志：%d / %d"},
	{"replay.done", "日志重放完成，用时 %s"},
	{"transfer.rejected", "转账被拒绝：%s"},
	{"transfer.duplicate", "重复的转账请求，已忽略"},
	{"healthz.ok", "服务运行正常"},
	{"healthz.degraded", "服务降级运行：%s"},
}

// Assistant sentences before tool calls; %s is a path or a pattern.
var sayRead = []string{
	"Let me read %s.",
	"I'll look at %s to see how it fits together.",
	"Reading %s before I change anything near it.",
	"I need the current contents of %s.",
	"Checking %s for the pieces the next change depends on.",
}

var sayReread = []string{
	"My earlier view of %s is out of date after the edit; reading it again.",
	"Re-reading %s to get its current text.",
	"Let me look at %s once more before touching it.",
}

var sayGrep = []string{
	"Searching for %s to find every use.",
	"Where else is %s used?",
	"Let me grep for %s.",
}

var sayEdit = []string{
	"Updating %s.",
	"Making the change in %s.",
	"Editing %s accordingly.",
}

var sayList = []string{
	"Let me see what is in %s.",
	"Listing %s.",
}

var sayCheck = []string{
	"Checking that everything still builds.",
	"Running a quick check.",
	"Let me make sure nothing else broke.",
}

// quick commands that always pass, with their output.
var quickCommands = [][2]string{
	{"go build ./...", "(no output)\n"},
	{"go vet ./internal/ledger/...", "(no output)\n"},
	{"gofmt -l internal/", "(no output)\n"},
	{"go vet ./internal/i18n/... ./internal/gen/...", "(no output)\n"},
}
