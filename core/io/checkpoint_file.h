#pragma once
// A checkpoint file (checkpoint.bin in a run folder): an 8-byte magic "SVI-CKPT", the format
// version (kCheckpointFormat), a byte-order mark, the state's length and CRC-32, then the state
// (core/run/run_checkpoint.h). Written atomically: a reader sees the previous checkpoint or
// the new one, never a mixture, whenever the writer is killed. Read back, anything that is not
// a whole checkpoint of this format — another file, a truncated or corrupted one, another
// version, another byte order — is refused with a DataError naming the file and the reason.

#include <QString>
#include <cstdint>
#include <string>

namespace svi {

// The version this build writes and reads. Raise it when the layout of the framing or of any
// trainer's records changes; readCheckpointFile refuses other versions with a message.
inline constexpr std::uint32_t kCheckpointFormat = 2;

// A run folder's checkpoint.
inline constexpr const char* kCheckpointFile = "checkpoint.bin";

// The file's bytes for `state`, and back (throwing DataError naming `file`).
std::string encodeCheckpoint(const std::string& state);
std::string decodeCheckpoint(const std::string& bytes, const std::string& file);

// Writes `state` to `path` atomically; throws DataError naming the file.
void writeCheckpointFile(const QString& path, const std::string& state);
// The state in `path`; throws DataError naming the file and what is wrong with it.
std::string readCheckpointFile(const QString& path);

} // namespace svi
