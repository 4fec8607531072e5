#pragma once

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

namespace docgate {

// The message types every part of the HTTP adapter speaks.
using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;
// A request's start line and fields, as they are before its body is read.
using HttpRequestHeader = boost::beast::http::request_header<>;
using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;
using HttpStatus = boost::beast::http::status;
using HttpVerb = boost::beast::http::verb;

}  // namespace docgate
