mod doc_map;
mod doc_refs;
mod fake_model;
mod need_guard;
mod no_circles;
mod room_sizes;
mod wing_calls;
