#include "adapters/convert/process_converter.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zip.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

namespace docgate {

namespace {

namespace fs = std::filesystem;

Error Unreadable(std::string detail) {
  return MakeError(ErrorCode::kUnprocessableDocument, std::move(detail));
}

// ---- ZIP archives (docx, odt), read with libzip -------------------------------------------------

constexpr zip_int64_t kMaxZipEntries = 10'000;
constexpr std::string_view kOdtMediaType = "application/vnd.oasis.opendocument.text";

struct ZipCloser {
  void operator()(zip_t* archive) const { zip_discard(archive); }
};

// The first `limit` bytes of entry `index`, or nullopt when it cannot be read.
std::optional<std::string> EntryPrefix(zip_t* archive, zip_uint64_t index, std::size_t limit) {
  zip_file_t* file = zip_fopen_index(archive, index, 0);
  if (file == nullptr) return std::nullopt;
  std::string text(limit, '\0');
  const zip_int64_t read = zip_fread(file, text.data(), limit);
  zip_fclose(file);
  if (read < 0) return std::nullopt;
  text.resize(static_cast<std::size_t>(read));
  return text;
}

// ---- Child processes
// -------------------------------------------------------------------------------

// A scratch directory of its own for one conversion, removed with everything in it.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern = (fs::temp_directory_path() / "docgate-import-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
    }
    path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// `program` as execve needs it: itself when it names a path, else found on PATH (docgate's).
std::optional<std::string> Executable(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    return ::access(program.c_str(), X_OK) == 0 ? std::optional(program) : std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (!dirs.empty()) {
    const std::size_t colon = dirs.find(':');
    const std::string candidate = std::string(dirs.substr(0, colon)) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    dirs = colon == std::string_view::npos ? std::string_view{} : dirs.substr(colon + 1);
  }
  return std::nullopt;
}

// Exit codes of a child that never reached its converter.
constexpr int kIsolationFailed = 125;
constexpr int kExecFailed = 127;

struct Limits {
  std::size_t memory_bytes;
  std::size_t file_bytes;
  std::chrono::milliseconds timeout;
  bool isolate_network;
};

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void BecomeConverter(const char* path, char* const argv[], char* const envp[],
                                  const char* directory, int stderr_fd, const Limits& limits) {
  ::setsid();  // a session of its own, so that a timeout kills it with all it started
  if (limits.isolate_network &&
      ::unshare(::geteuid() == 0 ? CLONE_NEWNET : CLONE_NEWUSER | CLONE_NEWNET) != 0) {
    ::_exit(kIsolationFailed);
  }
  if (::chdir(directory) != 0) ::_exit(kExecFailed);
  const auto limit = [](int resource, rlim_t value) {
    const rlimit bound{value, value};
    ::setrlimit(resource, &bound);
  };
  limit(RLIMIT_AS, limits.memory_bytes);
  limit(RLIMIT_FSIZE, limits.file_bytes);
  limit(RLIMIT_CPU, static_cast<rlim_t>(limits.timeout.count() / 1000 + 1));
  limit(RLIMIT_CORE, 0);
  const int null = ::open("/dev/null", O_RDWR);
  ::dup2(null, STDIN_FILENO);
  ::dup2(null, STDOUT_FILENO);
  ::dup2(stderr_fd, STDERR_FILENO);
  ::close_range(3, ~0U, 0);  // nothing of docgate's: sockets, database files, the scratch of others
  limit(RLIMIT_NOFILE, 64);
  ::execve(path, argv, envp);
  ::_exit(kExecFailed);
}

struct ChildEnd {
  bool timed_out = false;
  int status = 0;  // waitpid's
};

ChildEnd Run(const std::string& path, const std::vector<std::string>& args,
             const fs::path& directory, const Limits& limits) {
  std::vector<std::string> argv_text{path};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : argv_text) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::array<std::string, 4> env_text{"PATH=/usr/bin:/bin", "HOME=" + directory.string(),
                                      "LANG=C.UTF-8", "TMPDIR=" + directory.string()};
  std::vector<char*> envp;
  for (std::string& entry : env_text) envp.push_back(entry.data());
  envp.push_back(nullptr);
  const std::string dir = directory.string();
  const std::string stderr_path = (directory / "stderr.txt").string();
  const int stderr_fd = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (stderr_fd < 0) throw std::system_error(errno, std::generic_category(), "open stderr");

  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(stderr_fd);
    throw std::system_error(errno, std::generic_category(), "fork");
  }
  if (pid == 0)
    BecomeConverter(path.c_str(), argv.data(), envp.data(), dir.c_str(), stderr_fd, limits);
  ::close(stderr_fd);

  // Waits for the child's end up to the timeout on a pidfd (Linux 5.3), then kills its session.
  ChildEnd end;
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (pidfd >= 0) {
    pollfd ready{pidfd, POLLIN, 0};
    int polled;
    do {
      polled = ::poll(&ready, 1, static_cast<int>(limits.timeout.count()));
    } while (polled < 0 && errno == EINTR);
    ::close(pidfd);
    end.timed_out = polled == 0;
  }
  if (end.timed_out) ::kill(-pid, SIGKILL);
  while (::waitpid(pid, &end.status, 0) < 0 && errno == EINTR) {
  }
  return end;
}

std::string ReadFile(const fs::path& path, std::size_t limit) {
  std::ifstream in(path, std::ios::binary);
  std::string text;
  text.resize(limit);
  in.read(text.data(), static_cast<std::streamsize>(limit));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

// What the converter wrote to stderr (its first 4 KiB).
std::string Stderr(const fs::path& directory) { return ReadFile(directory / "stderr.txt", 4096); }

// The converter's complaint, for a 422's detail: the first line that names an error, else its
// first line, at most 200 bytes.
std::string Complaint(const std::string& stderr_text) {
  std::string_view rest = stderr_text;
  std::string_view chosen;
  while (!rest.empty()) {
    const std::size_t end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    if (chosen.empty()) chosen = line;
    if (line.find("rror") != std::string_view::npos) {
      chosen = line;
      break;
    }
  }
  return std::string(chosen.substr(0, 200));
}

bool Mentions(const std::string& text, std::string_view word) {
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find(word) != std::string::npos;
}

// pdftotext's paragraphs as Markdown paragraphs: the lines of one joined, with a space between
// two that meet in Latin text and none where Chinese meets (a space there would show); the runs
// of spaces the layout puts between words become one.
std::string ParagraphsOf(const std::string& text) {
  std::string markdown;
  std::string paragraph;
  const auto flush = [&] {
    if (paragraph.empty()) return;
    if (!markdown.empty()) markdown += "\n\n";
    markdown += paragraph;
    paragraph.clear();
  };
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t stop = text.find('\n', start);
    if (stop == std::string::npos) stop = text.size();
    std::string_view line(text.data() + start, stop - start);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\f')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    if (line.empty()) {
      flush();
    } else {
      const bool latin_seam = !paragraph.empty() &&
                              static_cast<unsigned char>(paragraph.back()) < 0x80 &&
                              static_cast<unsigned char>(line.front()) < 0x80;
      if (latin_seam) paragraph += ' ';
      for (const char c : line) {
        if (c != ' ' || paragraph.empty() || paragraph.back() != ' ') paragraph += c;
      }
    }
    start = stop + 1;
  }
  flush();
  return markdown.empty() ? markdown : markdown + "\n";
}

// Whether this kernel gives a child a network namespace of its own.
bool ProbeNetworkIsolation() {
  const pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid == 0) {
    ::_exit(::unshare(::geteuid() == 0 ? CLONE_NEWNET : CLONE_NEWUSER | CLONE_NEWNET) == 0 ? 0 : 1);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

const char* KindName(ImportKind kind) {
  switch (kind) {
    case ImportKind::kHtml:
      return "HTML";
    case ImportKind::kDocx:
      return "Word (.docx)";
    case ImportKind::kOdt:
      return "OpenDocument (.odt)";
    case ImportKind::kPdf:
      return "PDF";
    default:
      return "text";
  }
}

}  // namespace

ProcessConverter::ProcessConverter(ImportConfig config)
    : config_(std::move(config)), network_isolated_(ProbeNetworkIsolation()) {
  if (!network_isolated_) {
    spdlog::warn(
        "import: this kernel refuses converters a network namespace of their own; pandoc runs "
        "with --sandbox and pdftotext reads no network, but nothing else isolates them");
  }
}

Result<std::optional<ImportKind>> ProcessConverter::ZipKind(std::string_view bytes) const {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
  if (source == nullptr) return Unreadable("the ZIP archive could not be read");
  std::unique_ptr<zip_t, ZipCloser> archive(
      zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error));
  if (!archive) {
    zip_source_free(source);
    zip_error_fini(&error);
    return Unreadable("the file is a damaged ZIP archive (a .docx or .odt is one)");
  }
  const zip_int64_t entries = zip_get_num_entries(archive.get(), 0);
  if (entries < 0 || entries > kMaxZipEntries) {
    return Unreadable("the ZIP archive has more than " + std::to_string(kMaxZipEntries) +
                      " entries");
  }
  std::uint64_t unpacked = 0;
  bool content_types = false;
  bool word_document = false;
  std::optional<zip_uint64_t> mimetype;
  for (zip_int64_t i = 0; i < entries; ++i) {
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive.get(), static_cast<zip_uint64_t>(i), 0, &stat) != 0 ||
        (stat.valid & ZIP_STAT_SIZE) == 0 || (stat.valid & ZIP_STAT_NAME) == 0) {
      return Unreadable("an entry of the ZIP archive cannot be read");
    }
    unpacked += stat.size;
    const std::string_view name = stat.name;
    content_types = content_types || name == "[Content_Types].xml";
    word_document = word_document || name == "word/document.xml";
    if (name == "mimetype") mimetype = static_cast<zip_uint64_t>(i);
  }
  if (unpacked > config_.max_unpacked_bytes ||
      unpacked > std::uint64_t{config_.max_zip_ratio} * bytes.size()) {
    return Unreadable("the ZIP archive would unpack to " + std::to_string(unpacked) +
                      " bytes from " + std::to_string(bytes.size()) + " (a zip bomb): at most " +
                      std::to_string(config_.max_unpacked_bytes) + " bytes and " +
                      std::to_string(config_.max_zip_ratio) + " times its size are converted");
  }
  if (content_types && word_document) return std::optional(ImportKind::kDocx);
  if (mimetype) {
    const auto media_type = EntryPrefix(archive.get(), *mimetype, 64);
    if (!media_type) return Unreadable("the ZIP archive's mimetype entry cannot be read");
    if (*media_type == kOdtMediaType) return std::optional(ImportKind::kOdt);
  }
  return std::optional<ImportKind>{};
}

Result<std::string> ProcessConverter::ToMarkdown(ImportKind kind, std::string_view bytes) const {
  const bool pdf = kind == ImportKind::kPdf;
  const char* reader = kind == ImportKind::kHtml   ? "html-native_divs-native_spans"
                       : kind == ImportKind::kDocx ? "docx"
                       : kind == ImportKind::kOdt  ? "odt"
                                                   : nullptr;
  if (!pdf && reader == nullptr) {
    throw std::invalid_argument("ProcessConverter: no converter for this kind");
  }
  const std::string& program = pdf ? config_.pdftotext : config_.pandoc;
  const auto path = Executable(program);
  if (!path) {
    return MakeError(ErrorCode::kUnsupportedMediaType, std::string("this server cannot convert ") +
                                                           KindName(kind) + ": " + program +
                                                           " is not installed");
  }
  ScratchDirectory scratch;
  const fs::path input = scratch.path() / (pdf ? "input.pdf" : "input");
  const fs::path output = scratch.path() / "output.md";
  {
    std::ofstream file(input, std::ios::binary);
    file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!file) throw std::system_error(errno, std::generic_category(), "write " + input.string());
  }
  std::vector<std::string> args;
  if (pdf) {
    // -layout keeps a blank line where the page leaves space between paragraphs.
    args = {"-layout", "-enc", "UTF-8", "-nopgbrk", input.string(), output.string()};
  } else {
    // --sandbox: pandoc reads no file but its input and fetches nothing.
    args = {"--sandbox",   "-f", reader,          "-t",          "gfm-raw_html",
            "--wrap=none", "-o", output.string(), input.string()};
  }
  const Limits limits{config_.memory_bytes, config_.max_output_bytes, config_.timeout,
                      network_isolated_};
  const ChildEnd end = Run(*path, args, scratch.path(), limits);

  const std::string seconds = std::to_string(config_.timeout.count() / 1000.0).substr(0, 4);
  if (end.timed_out) {
    return Unreadable(std::string("converting the ") + KindName(kind) + " took longer than " +
                      seconds + " s");
  }
  if (WIFSIGNALED(end.status)) {
    const int signal = WTERMSIG(end.status);
    if (signal == SIGXFSZ) {
      return Unreadable("the converted text is larger than " +
                        std::to_string(config_.max_output_bytes) + " bytes");
    }
    if (signal == SIGXCPU) {
      return Unreadable(std::string("converting the ") + KindName(kind) + " took longer than " +
                        seconds + " s of CPU");
    }
    return Unreadable(std::string("the ") + KindName(kind) + " converter stopped on signal " +
                      std::to_string(signal) + " (out of memory, or a file it cannot handle)");
  }
  const int code = WEXITSTATUS(end.status);
  if (code == kIsolationFailed) {
    throw std::runtime_error("import: a converter could not get its network namespace");
  }
  if (code == kExecFailed) {
    return MakeError(ErrorCode::kUnsupportedMediaType, std::string("this server cannot convert ") +
                                                           KindName(kind) + ": " + program +
                                                           " could not be started");
  }
  if (code != 0) {
    const std::string stderr_text = Stderr(scratch.path());
    const std::string complaint = Complaint(stderr_text);
    if (pdf && (Mentions(stderr_text, "password") || Mentions(stderr_text, "encrypt"))) {
      return Unreadable("the PDF is encrypted: remove its password and import it again");
    }
    if (Mentions(stderr_text, "heap") || Mentions(stderr_text, "memory")) {
      return Unreadable(std::string("converting the ") + KindName(kind) + " needs more than " +
                        std::to_string(config_.memory_bytes >> 20) + " MiB");
    }
    return Unreadable(std::string("the file could not be read as ") + KindName(kind) +
                      (complaint.empty() ? std::string() : ": " + complaint));
  }
  std::error_code size_error;
  const auto size = fs::file_size(output, size_error);
  if (size_error)
    return Unreadable(std::string("the ") + KindName(kind) + " converter wrote nothing");
  if (size >= config_.max_output_bytes) {
    return Unreadable("the converted text is larger than " +
                      std::to_string(config_.max_output_bytes) + " bytes");
  }
  std::string markdown = ReadFile(output, config_.max_output_bytes);
  if (pdf) markdown = ParagraphsOf(markdown);
  if (markdown.find_first_not_of(" \t\r\n\f") == std::string::npos) {
    return Unreadable(pdf ? "the PDF has no text to import (a scan without a text layer?)"
                          : std::string("the ") + KindName(kind) + " has no text to import");
  }
  return markdown;
}

}  // namespace docgate
