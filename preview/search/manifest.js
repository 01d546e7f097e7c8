glossarySearch.manifest({"n":0,"chunk":64,"shards":{}});
