{
  "targets": [
    {
      "target_name": "fd",
      "sources": ["fd.c"],
      "defines": ["NAPI_VERSION=8"]
    }
  ]
}
