#pragma once

// Rows a database of schema 7 (before migration 0008, ADR 0009) may hold, the same SQL for SQLite
// and PostgreSQL: document 1, approved at version 1 and ingested, with two chunks of Chinese text
// that the engines' old configurations (unicode61, 'english') indexed as whole clauses. After
// 0008, search finds them by any of their words.

namespace docgate {

inline constexpr char kSchema7ChunksSeed[] =
    "INSERT INTO kh_document (id, title, status, version, author_id, approved_version,"
    " ingest_status, created_at, updated_at)"
    " VALUES (1, '\u6d88\u606f\u961f\u5217', 'approved', 1, 'alice', 1, 'done', 0, 0);"
    "INSERT INTO kh_document_content (document_id, version, content, created_at, edited_by, title)"
    " VALUES (1, 1, 'x', 0, 'alice', '\u6d88\u606f\u961f\u5217');"
    "INSERT INTO kh_document_chunk (document_id, ordinal, version, title, content)"
    " VALUES (1, 0, 1, '\u6d88\u606f\u961f\u5217',"
    "         '\u77e5\u8bc6\u5e93\u7684\u6743\u9650\u7cfb\u7edf\u4f7f\u7528Redis\u3002'),"
    "        (1, 1, 1, '\u6d88\u606f\u961f\u5217',"
    "         '\u6b7b\u4fe1\u961f\u5217\u4fdd\u5b58\u5931\u8d25\u7684\u6d88\u606f\u3002');";
// 消息队列 (the title); 知识库的权限系统使用Redis。; 死信队列保存失败的消息。

}  // namespace docgate
